-- Pauses in force, shared by every dispatcher (PauseStore).
--
-- KEYS[1]  sluice:v1:pauses, a hash: "<provider>/<tenant>" ("*" for every) -> "<atMillis> <json>"
--          where json is {"by": ..., "reason": ...} and atMillis is Redis TIME when written.
-- ARGV[1]  "put", "remove" or "list"
-- put:     ARGV[2] field, ARGV[3] json, ARGV[4] the most pauses the hash may hold. Replaces the
--          field's pause (who, when and why of the latest pause win); refuses a new field when the
--          hash holds that many already.
--          Returns {1, atMillis} when written, {0, count} when refused.
-- remove:  ARGV[2] field. Returns {1} when a pause was removed, {0} when there was none.
-- list:    Returns {field1, value1, field2, value2, ...} (the marker's field among them: it names
--          no scope, and readers skip it).
-- restore: the cache seeded again from the operator topic (CacheKeeper). ARGV[2] the marker's
--          field, ARGV[3] the marker's value to leave ("" to leave it as it is), then pairs of
--          field and value, "" for a value to remove. Atomic: the pauses and the marker together.
--          Returns {fields changed}.
-- marker:  ARGV[2] the marker's field. Returns {its value} or {} when absent.
local key = KEYS[1]
local MARKER = '~marker'
if ARGV[1] == 'put' then
  local max = tonumber(ARGV[4])
  if redis.call('HEXISTS', key, ARGV[2]) == 0 then
    local count = redis.call('HLEN', key) - redis.call('HEXISTS', key, MARKER)
    if count >= max then
      return {0, count}
    end
  end
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('HSET', key, ARGV[2], now .. ' ' .. ARGV[3])
  return {1, now}
elseif ARGV[1] == 'remove' then
  return {redis.call('HDEL', key, ARGV[2])}
elseif ARGV[1] == 'restore' then
  local changed = 0
  for i = 4, #ARGV - 1, 2 do
    local old = redis.call('HGET', key, ARGV[i])
    if ARGV[i + 1] == '' then
      changed = changed + redis.call('HDEL', key, ARGV[i])
    elseif old ~= ARGV[i + 1] then
      redis.call('HSET', key, ARGV[i], ARGV[i + 1])
      changed = changed + 1
    end
  end
  if ARGV[3] ~= '' then
    redis.call('HSET', key, ARGV[2], ARGV[3])
  end
  return {changed}
elseif ARGV[1] == 'marker' then
  local marker = redis.call('HGET', key, ARGV[2])
  if marker then
    return {marker}
  end
  return {}
end
return redis.call('HGETALL', key)
