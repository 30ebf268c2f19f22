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
granted = need or 0 and now_us, wait_us integers (wait_us is 0 when granted, else how long from
now until every bucket could pay); level_i the level of bucket i before this event (after
refill), as decimals.

A bucket several events of one call share (a tier-wide budget: every event of the tier charges
it) is read once, kept here between its events, and written once at the end of the call, with the
TTL its last charge set: the same values, reads and final state as a read and a write per event
(the call runs alone and at one Redis time), for a third of the commands.
]]

local t = redis.call('TIME')
local clock = tonumber(t[1]) * 1000000 + tonumber(t[2])
-- Each slot's marker, read once per call.
local markers = {}
local reply = {}
-- Each bucket the call read, by key: {level, ts} as stored (false: Redis does not have it), then
-- as the call's charges left it; and, for a charged one, the TTL its last charge set (ms).
local buckets = {}
local ttls = {}
local charged = {}

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
    local key = KEYS[k + i]
    local known = buckets[key]
    if known == nil then
      local stored = redis.call('HMGET', key, 'tokens', 'ts')
      local l, s = tonumber(stored[1]), tonumber(stored[2])
      known = l ~= nil and s ~= nil and {l, s}
      buckets[key] = known
    end
    local level, ts
    if known then
      level, ts = known[1], known[2]
    else
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
      local key = KEYS[k + i]
      -- (The level as a stored string would read back: %.17g round-trips a double exactly.)
      buckets[key] = {level, times[i]}
      ttls[key] = math.ceil((capacity - level) * 1000 / refill) + 1000
      if not charged[key] then
        charged[key] = true
        charged[#charged + 1] = key
      end
    end
  end

  local o = #reply
  reply[o + 1] = granted
  reply[o + 2] = now
  reply[o + 3] = wait
  for i = 1, n do
    reply[o + 3 + i] = string.format('%.17g', levels[i])
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
-- Every charged bucket written once, as the call's last charge of it left it.
for _, key in ipairs(charged) do
  local b = buckets[key]
  redis.call('HSET', key, 'tokens', string.format('%.17g', b[1]), 'ts', string.format('%.0f', b[2]))
  redis.call('PEXPIRE', key, ttls[key])
end
return reply
