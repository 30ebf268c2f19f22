-- The limits dispatchers learned from a provider's answers, shared by every instance.
--
-- KEYS[1]  sluice:v1:{<provider>}:learned, a hash: policy name -> "<unit>:<quota>:<windowMillis>:<expiresAtMillis>"
--          (hash-tagged by provider: one Redis Cluster slot, beside the provider's leak)
-- ARGV[1]  "put", "forget" or "get"
-- put:     ARGV[2..] quads: name, unit ("calls"|"cost"), quota, windowMillis. Each is stored to
--          expire at TIME + min(3600000, max(600000, 2 * windowMillis)) (LimitLearning.ttlMillis:
--          at most an hour); a later put of a name replaces it, except that for the same unit and
--          quota a longer live window is kept as it is, expiry included (never renewed by a
--          shorter statement: one far reset widens an estimate for an hour at most). The key
--          expires with its last field, so stale learning fades even if nobody reads it.
-- forget:  ARGV[2..] names to drop at once (policies the provider's RateLimit-Policy no longer
--          lists).
-- get:     nothing more. Drops expired fields, and cuts an expiry more than an hour away (written
--          by an older version, which kept limits for two windows) to an hour.
-- Returns  {nowMillis, name1, value1, name2, value2, ...} (the live fields; for put, none), with
--          nowMillis from Redis TIME, so a reader converts expiries to its own clock.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local key = KEYS[1]
if ARGV[1] == 'put' then
  local longest = 0
  for i = 2, #ARGV - 3, 4 do
    local window = tonumber(ARGV[i + 3])
    local ttl = math.min(3600000, math.max(600000, 2 * window))
    -- One quota stated with several windows (instances estimating an X-RateLimit window from
    -- resets seen at different moments): the longest still live is kept, the conservative one,
    -- as it is: its expiry is not renewed.
    local kept = false
    local before = redis.call('HGET', key, ARGV[i])
    if before then
      local unit, quota, w, expires = string.match(before, '^(%a+):(%d+):(%d+):(%d+)$')
      if unit == ARGV[i + 1] and quota == ARGV[i + 2] and tonumber(expires) > now
          and tonumber(w) > window then
        kept = true
        ttl = math.min(3600000, tonumber(expires) - now)
      end
    end
    if ttl > longest then longest = ttl end
    if not kept then
      redis.call('HSET', key, ARGV[i], ARGV[i + 1] .. ':' .. ARGV[i + 2] .. ':' .. string.format('%d', window) .. ':' .. (now + ttl))
    end
  end
  local pttl = redis.call('PTTL', key)
  if longest > 0 and (pttl < longest or pttl > 3600000) then
    redis.call('PEXPIRE', key, math.max(longest, math.min(pttl, 3600000)))
  end
  return {now}
end
if ARGV[1] == 'forget' then
  for i = 2, #ARGV do
    redis.call('HDEL', key, ARGV[i])
  end
  return {now}
end
local all = redis.call('HGETALL', key)
local out = {now}
for i = 1, #all, 2 do
  local expires = tonumber(string.match(all[i + 1], ':(%d+)$'))
  if expires and expires > now then
    local value = all[i + 1]
    if expires > now + 3600000 then
      value = string.gsub(value, ':(%d+)$', ':' .. string.format('%d', now + 3600000))
      redis.call('HSET', key, all[i], value)
    end
    out[#out + 1] = all[i]
    out[#out + 1] = value
  else
    redis.call('HDEL', key, all[i])
  end
end
if #out > 1 and redis.call('PTTL', key) > 3600000 then
  redis.call('PEXPIRE', key, 3600000)
end
return out
