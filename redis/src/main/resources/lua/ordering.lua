-- ordering.lua: the turns of one ordering key (one tenant's key toward one provider).
--
-- KEYS[1]  the key's hash: sluice:v1:{o:<provider>:<tenant>}:key:<orderingKey> (OrderKeys.key)
--          epoch    TIME in microseconds when the hash was made: a ticket of another epoch was
--                   given before the key drained or before Redis lost it, and has no turn to wait
--          next     the seq whose turn it is (1 first)
--          last     the last seq given (0: none)
--          blocked  the head was dead-lettered and the provider dead-letters its followers: the
--                   seqs up to this one are dead-lettered blocked_by_head at their turn (0: none)
--          s:<src>  the seq given to the inbound record <src> (topic-partition@offset), so the
--                   gate reading a record again after a crash gets its seq again, not a new one
--          q:<seq>  the record given <seq>, to drop its s: field when <seq> settles
--          g:<seq>  <seq> settled before its turn (dead-lettered without a call while it waited,
--                   at the gate or the dispatcher): the turn skips it when it gets there
-- KEYS[2]  the tenant's keys in flight toward the provider, a sorted set by last touch (ms):
--          sluice:v1:{o:<provider>:<tenant>}:keys (OrderKeys.inFlight)
-- ARGV[1]  the operation:
--   assign  ARGV[2] source, ARGV[3] ttl ms, ARGV[4] most keys in flight, ARGV[5] the key's name
--           -> { 'seq', epoch, seq } | { 'full', keys in flight }
--   turn    -> { 'turn', epoch, next, blocked } | { 'none' }
--   settle  ARGV[2] epoch, ARGV[3] seq, ARGV[4] 'delivered' | 'dead' | 'blocked',
--           ARGV[5] '1' when followers of a dead head are dead-lettered, ARGV[6] ttl ms,
--           ARGV[7] the key's name
--           -> { 'next', next } (advanced; already past, as for a settlement written twice, which
--              advances once; or, for a seq not yet at its turn, marked to be skipped) |
--              { 'none' } (no such epoch: nothing to advance)
--
-- A drained key (every seq given has settled) is deleted: a key costs Redis nothing while none of
-- its events is in flight. The hash and the set expire ttl after their last change.
local op = ARGV[1]
local t = redis.call('TIME')
local nowMs = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)

if op == 'assign' then
  local source = ARGV[2]
  local ttl = tonumber(ARGV[3])
  local given = redis.call('HGET', KEYS[1], 's:' .. source)
  if given then
    return { 'seq', tonumber(redis.call('HGET', KEYS[1], 'epoch')), tonumber(given) }
  end
  local state = redis.call('HMGET', KEYS[1], 'epoch', 'next', 'last')
  local epoch, next, last = state[1], tonumber(state[2]), tonumber(state[3])
  if not epoch then
    epoch = t[1] .. string.format('%06d', tonumber(t[2]))
    next, last = 1, 0
  end
  if last < next then
    -- The key has nothing in flight: it takes a place among the tenant's keys in flight.
    redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', nowMs - ttl)
    if not redis.call('ZSCORE', KEYS[2], ARGV[5]) then
      local count = redis.call('ZCARD', KEYS[2])
      if count >= tonumber(ARGV[4]) then
        return { 'full', count }
      end
    end
  end
  local seq = last + 1
  redis.call('HSET', KEYS[1], 'epoch', epoch, 'next', next, 'last', seq,
    's:' .. source, seq, 'q:' .. seq, source)
  redis.call('PEXPIRE', KEYS[1], ttl)
  redis.call('ZADD', KEYS[2], nowMs, ARGV[5])
  redis.call('PEXPIRE', KEYS[2], ttl)
  return { 'seq', tonumber(epoch), seq }
end

if op == 'turn' then
  local state = redis.call('HMGET', KEYS[1], 'epoch', 'next', 'blocked')
  if not state[1] then
    return { 'none' }
  end
  return { 'turn', tonumber(state[1]), tonumber(state[2]), tonumber(state[3] or 0) }
end

if op == 'settle' then
  local state = redis.call('HMGET', KEYS[1], 'epoch', 'next', 'last', 'blocked')
  if not state[1] or state[1] ~= ARGV[2] then
    return { 'none' }
  end
  local seq = tonumber(ARGV[3])
  local next, last, blocked = tonumber(state[2]), tonumber(state[3]), tonumber(state[4] or 0)
  if seq < next or seq > last then
    return { 'next', next }
  end
  if seq > next then
    -- Settled before its turn (dead-lettered without a call while it waited): skipped when reached.
    redis.call('HSET', KEYS[1], 'g:' .. seq, 1)
    return { 'next', next }
  end
  if ARGV[4] == 'dead' and ARGV[5] == '1' and blocked < last then
    redis.call('HSET', KEYS[1], 'blocked', last)
  end
  -- The head settled: the turn moves past it and past every follower settled before its turn.
  repeat
    local source = redis.call('HGET', KEYS[1], 'q:' .. next)
    if source then
      redis.call('HDEL', KEYS[1], 's:' .. source)
    end
    redis.call('HDEL', KEYS[1], 'q:' .. next, 'g:' .. next)
    next = next + 1
  until next > last or redis.call('HEXISTS', KEYS[1], 'g:' .. next) == 0
  if next > last then
    redis.call('DEL', KEYS[1])
    redis.call('ZREM', KEYS[2], ARGV[7])
    return { 'next', next }
  end
  redis.call('HSET', KEYS[1], 'next', next)
  redis.call('PEXPIRE', KEYS[1], ARGV[6])
  redis.call('ZADD', KEYS[2], nowMs, ARGV[7])
  redis.call('PEXPIRE', KEYS[2], ARGV[6])
  return { 'next', next }
end

return redis.error_reply('ordering.lua: unknown operation ' .. tostring(op))
