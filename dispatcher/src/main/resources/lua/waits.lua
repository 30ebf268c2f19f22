--[[
Sluice: what each dispatcher instance's events wait for, per provider, for `status` (WaitsStore.java).

One hash for the deployment: field = an instance id, value = "<expires_ms>|<json>", the expiry on
Redis's clock (TIME). An instance writes its own field every second; a field not written for the
TTL (an instance stopped or died) is dropped by the next write or read, so a reader sees only the
instances alive now. Holds one small JSON document per instance.

KEYS[1]  sluice:v2:{waits} (hash-tagged)
mode put:  ARGV[1] "put", ARGV[2] instance id, ARGV[3] ttl_ms, ARGV[4] json
mode read: ARGV[1] "read"; returns the json of every live instance
]]
local key = KEYS[1]
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local live = {}
local all = redis.call('HGETALL', key)
for i = 1, #all, 2 do
  local bar = string.find(all[i + 1], '|', 1, true)
  local expires = bar and tonumber(string.sub(all[i + 1], 1, bar - 1)) or 0
  if expires < now then
    redis.call('HDEL', key, all[i])
  else
    live[#live + 1] = string.sub(all[i + 1], bar + 1)
  end
end
if ARGV[1] == 'put' then
  redis.call('HSET', key, ARGV[2], tostring(now + tonumber(ARGV[3])) .. '|' .. ARGV[4])
  redis.call('PEXPIRE', key, tonumber(ARGV[3]) * 10)
  return {}
end
return live
