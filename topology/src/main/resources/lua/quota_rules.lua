--[[
Sluice: one event charged against several token buckets (its quota rules) at once, all or none.

Why one script: the event is allowed only if every rule allows it, and a refusal must consume
nothing in any rule. Redis runs a script alone, so reading every bucket, deciding and charging
them all is one step no other gate instance can interleave with.

Why no reservations and no leases here (the single-bucket script, token_bucket.lua, has both):
an event charged ahead in several buckets goes at the LATEST of its due times, later than its
unit is due in the other buckets. Units charged early but used late bunch up: three events whose
tenant-wide units are due at 0, 1 and 2 s, each held to 5 s by a different provider's bucket,
would all go at 5 s, three at once from a tenant-wide bucket of one. So a multi-rule event is
charged only when every bucket holds its units NOW, and each bucket is then an ordinary bucket
whose level never goes below zero, charged at the instant its event is admitted: invariant 1
(never more than capacity + refill * T admitted in any window T) holds for each rule on its own.
An event some bucket cannot pay is charged nothing in any bucket and told how long until every
one of them could pay (the latest of the per-bucket waits); it comes back then and is decided
again. There is no waiting line: under contention it may be refused again (stricter, never
looser).

A cost beyond a bucket's capacity could never be paid; such an event pays when that bucket is full
(taking it below zero, as a ticket holder's charge does in token_bucket.lua).

Shadow mode needs nothing of its own: nothing is ever charged ahead or queued, so an event
refused in shadow mode (and admitted anyway by the gate) has consumed nothing and delays no one.

Lost data: as token_bucket.lua, the slot's marker (KEYS[k + n + 1]) tells a bucket Redis lost from one
never seen. A lost bucket here was at worst empty (its level never goes below zero), so a bucket
Redis does not have after a loss found at `lost` starts at min(capacity, (now - lost) * refill).

One call decides one event or a batch of events, in order, at one Redis time, each exactly as if
it came alone (the gate sends its events together). Event e's arguments start at ARGV[a + 1] and its
keys at KEYS[k + 1] (a and k: what the events before it took), with n its number of rules:
KEYS[k + 1 .. k + n]  its buckets, e.g. sluice:v1:{t:acme}:p:payments-api (all of one slot in a
                      cluster; the caller groups events by slot)
KEYS[k + n + 1]       the marker of their slot (SlotMarkers)
ARGV[a + 1]           n, the number of buckets
ARGV[a + 2]           need: the event's cost, >= 1
ARGV[a + 2 * i + 1], ARGV[a + 2 * i + 2]  capacity and refill per second of bucket i (1-based)
Stored fields of each bucket: tokens (the level, >= 0 but after an over-capacity charge) and ts
(Redis time of the last charge, microseconds). The key expires once the bucket is full again.
Returns, per event, {granted, now_us, wait_us, level_1, ..., level_n} one after the other:
granted = need or 0; wait_us is 0 when granted, else how long from now until every bucket could
pay; level_i the level of bucket i before this event (after refill), as decimals.
]]

local t = redis.call('TIME')
local clock = tonumber(t[1]) * 1000000 + tonumber(t[2])
-- Each slot's marker, read once per call.
local markers = {}
local reply = {}

-- The event whose arguments start at ARGV[a + 1] and keys at KEYS[k + 1]; returns its n.
local function decide(a, k)
  local n = tonumber(ARGV[a + 1])
  local need = tonumber(ARGV[a + 2])
  local now = clock

  -- The slot's marker, read only when a bucket is missing (the one case it decides).
  local function lost_at()
    local marker = KEYS[k + n + 1]
    local lost = markers[marker]
    if lost == nil then
      lost = tonumber(redis.call('GET', marker))
      if lost == nil then
        lost = now
        redis.call('SET', marker, string.format('%.0f', now))
      end
      markers[marker] = lost
    end
    return lost
  end

  local levels = {}
  local times = {}
  local wait = 0
  for i = 1, n do
    local capacity = tonumber(ARGV[a + 2 * i + 1])
    local refill = tonumber(ARGV[a + 2 * i + 2])
    local stored = redis.call('HMGET', KEYS[k + i], 'tokens', 'ts')
    local level = tonumber(stored[1])
    local ts = tonumber(stored[2])
    if level == nil or ts == nil then
      level = capacity
      ts = now
      local lost = lost_at()
      if lost > 0 then
        level = math.min(capacity, (now - lost) * refill / 1000000)
      end
    end
    -- Never backwards: a clock behind the stored time decides as of the stored time.
    local at = math.max(now, ts)
    level = math.min(capacity, level + (at - ts) * refill / 1000000)
    levels[i] = level
    times[i] = at
    -- The units this bucket must hold: the event's cost, or all it can hold.
    local must = math.min(need, capacity)
    if level + 1e-9 < must then
      wait = math.max(wait, (at - now) + math.ceil((must - level) * 1000000 / refill))
    end
  end

  local granted = 0
  if wait == 0 then
    granted = need
    for i = 1, n do
      local capacity = tonumber(ARGV[a + 2 * i + 1])
      local refill = tonumber(ARGV[a + 2 * i + 2])
      local level = levels[i] - need
      redis.call('HSET', KEYS[k + i], 'tokens', string.format('%.17g', level), 'ts', string.format('%.0f', times[i]))
      redis.call('PEXPIRE', KEYS[k + i], math.ceil((capacity - level) * 1000 / refill) + 1000)
    end
  end

  table.insert(reply, granted)
  table.insert(reply, string.format('%.0f', now))
  table.insert(reply, string.format('%.0f', wait))
  for i = 1, n do
    table.insert(reply, string.format('%.17g', levels[i]))
  end
  return n
end

local a = 0
local k = 0
while a < #ARGV do
  local n = decide(a, k)
  a = a + 2 + 2 * n
  k = k + n + 1
end
return reply
