-- The tenant registry, shared by every gate, the CLI and the admin API (TenantRegistry).
--
-- KEYS[1]  sluice:v1:{tenants}, a hash: tenant id -> "<atMillis> <json>", json being the record
--          with "by" (TenantCodec), atMillis Redis TIME when written.
-- KEYS[2]  sluice:v1:{tenants}:version, a counter bumped by every change.
-- KEYS[3]  sluice:v1:{tenants}:changes, a stream: one entry "<version>-1" {id = tenant} per
--          change, trimmed to about ARGV's changesMax entries.
-- KEYS[4]  sluice:v1:{tenants}:audit:<id> (put, delete, audit only), a list, newest first:
--          {"at":millis,"by":...,"before":json|null,"after":json|null}, at most auditMax entries,
--          expiring auditTtl milliseconds after the tenant's last change.
-- ARGV[1]  the operation:
-- put:     ARGV[2] id, ARGV[3] json, ARGV[4] by as a JSON string, ARGV[5] the most tenants the
--          hash may hold, ARGV[6] auditMax, ARGV[7] auditTtl, ARGV[8] changesMax.
--          Returns {1, atMillis, version} when written, {0, count} when a new id was refused.
-- delete:  ARGV[2] id, ARGV[3] by, ARGV[4..6] as put's 6..8. Returns {1, version} or {0}.
-- get:     ARGV[2] id. Returns {version, value or nil}.
-- list:    ARGV[2] cursor, ARGV[3] match pattern, ARGV[4] count. Returns HSCAN's reply.
-- audit:   ARGV[2] most entries. Returns them, newest first.
-- changes: ARGV[2] the last version applied (-1: none), ARGV[3] the most ids answered.
--          Returns {version, tenants, gap, id...}: gap 1 when the ids since the last version
--          cannot all be given (trimmed, more than the most, or the counter went back).
-- restore: a record set again from the operator topic (CacheKeeper); KEYS[4] is the marker.
--          ARGV[2] id, ARGV[3] the value ("" when the tenant has no record), ARGV[4] changesMax.
--          Changes the hash, the version and the changes only when the value differs (no audit
--          entry: the change is not an operator's). Returns {1} when changed, {0} when not.
-- marker:  KEYS[4] sluice:v1:{tenants}:marker. Returns {its value} or {} when absent.
-- mark:    KEYS[4] as marker; ARGV[2] the value to leave, ARGV[3] the value expected there ("":
--          any). Returns {1} when set, {0} when the marker was not the one expected.
local op = ARGV[1]

local function now()
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

local function body(value)
  if not value then
    return 'null'
  end
  local space = string.find(value, ' ', 1, true)
  if not space then
    return 'null'
  end
  return string.sub(value, space + 1)
end

local function changed(id, by, before, after, at, auditMax, auditTtl, changesMax)
  local version = redis.call('INCR', KEYS[2])
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', changesMax, version .. '-1', 'id', id)
  redis.call('LPUSH', KEYS[4], '{"at":' .. at .. ',"by":' .. by .. ',"before":' .. before
      .. ',"after":' .. after .. '}')
  redis.call('LTRIM', KEYS[4], 0, tonumber(auditMax) - 1)
  redis.call('PEXPIRE', KEYS[4], auditTtl)
  return version
end

local function version()
  return tonumber(redis.call('GET', KEYS[2]) or '0')
end

if op == 'put' then
  local old = redis.call('HGET', KEYS[1], ARGV[2])
  if not old then
    local count = redis.call('HLEN', KEYS[1])
    if count >= tonumber(ARGV[5]) then
      return {0, count}
    end
  end
  local at = now()
  redis.call('HSET', KEYS[1], ARGV[2], at .. ' ' .. ARGV[3])
  return {1, at, changed(ARGV[2], ARGV[4], body(old), ARGV[3], at, ARGV[6], ARGV[7], ARGV[8])}
elseif op == 'delete' then
  local old = redis.call('HGET', KEYS[1], ARGV[2])
  if not old then
    return {0}
  end
  redis.call('HDEL', KEYS[1], ARGV[2])
  return {1, changed(ARGV[2], ARGV[3], body(old), 'null', now(), ARGV[4], ARGV[5], ARGV[6])}
elseif op == 'get' then
  return {version(), redis.call('HGET', KEYS[1], ARGV[2])}
elseif op == 'list' then
  return redis.call('HSCAN', KEYS[1], ARGV[2], 'MATCH', ARGV[3], 'COUNT', ARGV[4])
elseif op == 'audit' then
  return redis.call('LRANGE', KEYS[4], 0, tonumber(ARGV[2]) - 1)
elseif op == 'changes' then
  local last = tonumber(ARGV[2])
  local max = tonumber(ARGV[3])
  local current = version()
  local tenants = redis.call('HLEN', KEYS[1])
  if current == last then
    return {current, tenants, 0}
  end
  if last < 0 or current < last then
    return {current, tenants, 1}
  end
  local entries = redis.call('XRANGE', KEYS[3], (last + 1) .. '-1', '+', 'COUNT', max + 1)
  local first = entries[1] and tonumber(string.match(entries[1][1], '^(%d+)-'))
  if first ~= last + 1 or #entries > max then
    return {current, tenants, 1}
  end
  local out = {current, tenants, 0}
  for _, entry in ipairs(entries) do
    out[#out + 1] = entry[2][2]
  end
  return out
elseif op == 'restore' then
  local old = redis.call('HGET', KEYS[1], ARGV[2])
  if (old or '') == ARGV[3] then
    return {0}
  end
  if ARGV[3] == '' then
    redis.call('HDEL', KEYS[1], ARGV[2])
  else
    redis.call('HSET', KEYS[1], ARGV[2], ARGV[3])
  end
  local v = redis.call('INCR', KEYS[2])
  redis.call('XADD', KEYS[3], 'MAXLEN', '~', ARGV[4], v .. '-1', 'id', ARGV[2])
  return {1}
elseif op == 'marker' then
  local marker = redis.call('GET', KEYS[4])
  if marker then
    return {marker}
  end
  return {}
elseif op == 'mark' then
  if ARGV[3] ~= '' and redis.call('GET', KEYS[4]) ~= ARGV[3] then
    return {0}
  end
  redis.call('SET', KEYS[4], ARGV[2])
  return {1}
end
return redis.error_reply('unknown operation ' .. tostring(op))
