--[[
Sluice: one event charged against several token buckets (its quota rules) at once, all or none.

Why one script: the event is allowed only if every rule allows it, and a refusal must consume
nothing in any rule. Redis runs a script alone, so reading every bucket, deciding and charging
them all is one step no other gate instance can interleave with.

Why no reservations here (the single-bucket script, token_bucket.lua, has them; leases across
rules, below, lease only units the buckets hold now):
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
With leases (a caller passing hold_us > 0, on every call once it leases) it was at worst empty
with all its capacity leased out to holders who may spend it until their leases end, within
hold_us of the loss: its cap stayed at 0 until then. So it starts empty as of lost + hold_us (a
time still ahead: the event is decided as of then, and waits) and refills from there.

Leases across rules (a busy rule set decided in the gate's process, not here):
  An event granted here may also take a lease: want - need more units from EVERY one of its
  buckets, as many as the one holding the fewest whole units has beyond the event's need (all or
  none, like the event: a lease is one run of units good in every rule at once; an event served
  from it takes its cost from all of them together). Only units a bucket holds now are leased,
  never refill still to come, so a leased unit is a saved token, never a reservation, and the
  lease serves only "admit now" decisions: waits and shadow refusals are decided here. As in
  token_bucket.lua, a unit charged now but used later must not let a burst pass capacity +
  rate * T, so each bucket records every lease until it ends ("held" units) and refills only up
  to capacity - held: at every instant level + units unused in live leases <= capacity, for each
  rule on its own, whichever instances or rule sets hold leases on it (a tier budget shared by many
  tenants and instances is held against by all of their leases together). The holder stops using
  a lease before its deadline (on an upper bound of this clock), and names it with a later call to
  release it: its unused units return (never above capacity - the held that remains) and the cap
  rises. A lease never released (its holder crashed) ends at its deadline: the cap rises then and
  its unused units are lost (stricter, never looser). Between two calls the cap steps up at each
  deadline, so refill is computed piecewise up to each one, as token_bucket.lua does. A lease's id
  is the call's Redis time and the event's place in the call ("<now>.<e>"), the same in all its
  buckets.

One call decides one event or a batch of events, in order, at one Redis time, each exactly as if
it came alone (the gate sends its events together). Event e's arguments start at ARGV[a + 1] and its
keys at KEYS[k + 1] (a and k: what the events before it took), with n its number of rules:
KEYS[k + 1 .. k + n]  its buckets, e.g. sluice:v1:{t:acme}:p:payments-api (all of one slot in a
                      cluster; the caller groups events by slot)
KEYS[k + n + 1]       the marker of their slot (SlotMarkers)
ARGV[a + 1]           n, the number of buckets
ARGV[a + 2]           need: the event's cost, >= 1
ARGV[a + 3]           want: units to take if granted, >= need; units beyond need form a lease
ARGV[a + 4]           hold_us: how long the buckets hold a new lease (> 0 when want > need; a
                      caller that leases passes it on every call: see "Lost data")
ARGV[a + 5]           a lease to release first: "id deadline_us units used", or "" for none; it is
                      released in each bucket that still holds exactly that lease
ARGV[a + 2 * i + 4], ARGV[a + 2 * i + 5]  capacity and refill per second of bucket i (1-based)
Stored fields of each bucket: tokens (the level, >= 0 but after an over-capacity charge), ts
(Redis time of the last charge, microseconds), and while leases live: held (their units), sweep
(no lease ends before it), hold_end (none ends after it) and lease:<id> = "deadline_us units".
The key expires once every lease has ended and the bucket is full again.
Returns, per event, {granted, now_us, wait_us, lease_units, lease_end_us, lease_id, level_1, ...,
level_n} one after the other: granted = need or 0 and now_us, wait_us integers (wait_us is 0 when
granted, else how long from now until every bucket could pay); lease_units the units leased beyond
need (0: no lease), lease_end_us its deadline (0: none), lease_id a string ("" for none); level_i
the level of bucket i before this event (after refill and release), as decimals.

A bucket several events of one call share (a tier-wide budget: every event of the tier charges
it) is read once, kept here between its events, and written once at the end of the call, with the
TTL its last charge set (a lease's own field is written when it is granted or let go): the same values, reads and final state as a read and a write per event
(the call runs alone and at one Redis time), for a third of the commands.
]]

local t = redis.call('TIME')
local clock = tonumber(t[1]) * 1000000 + tonumber(t[2])
-- Each slot's marker, read once per call.
local markers = {}
local reply = {}
-- Each bucket the call read, by key: {level, ts, held, sweep, hold_end} as stored (false: Redis
-- does not have it), then as the call left it, and whether it had leases when read; and each changed one, in order, to write at the end.
local buckets = {}
local changed = {}

local function touch(key)
  if not changed[key] then
    changed[key] = true
    changed[#changed + 1] = key
  end
end

-- Refill up to `to` under the cap of the time, letting go each lease that ended by then, in
-- deadline order (the cap steps up at each deadline).
local function refill_to(key, b, capacity, refill, to)
  if b[4] ~= nil and b[4] <= to then
    local fields = redis.call('HGETALL', key)
    local ended = {}
    local next_sweep = nil
    for i = 1, #fields, 2 do
      if string.sub(fields[i], 1, 6) == 'lease:' then
        local d, u = string.match(fields[i + 1], '^(%d+) (%d+)$')
        d = tonumber(d)
        if d <= to then
          table.insert(ended, {d, tonumber(u), fields[i]})
        elseif next_sweep == nil or d < next_sweep then
          next_sweep = d
        end
      end
    end
    table.sort(ended, function(x, y) return x[1] < y[1] end)
    for _, e in ipairs(ended) do
      if e[1] > b[2] then
        b[1] = math.min(capacity - b[3], b[1] + (e[1] - b[2]) * refill / 1000000)
        b[2] = e[1]
      end
      b[3] = b[3] - e[2]
      redis.call('HDEL', key, e[3])
    end
    b[4] = next_sweep
    touch(key)
  end
  if to > b[2] then
    b[1] = math.min(capacity - b[3], b[1] + (to - b[2]) * refill / 1000000)
    b[2] = to
  end
end

-- The event whose arguments start at ARGV[a + 1] and keys at KEYS[k + 1], the e-th of the call;
-- returns its n.
local function decide(a, k, e)
  local n = tonumber(ARGV[a + 1])
  local need = tonumber(ARGV[a + 2])
  local want = tonumber(ARGV[a + 3])
  local hold = tonumber(ARGV[a + 4])
  local release = ARGV[a + 5]
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

  local rel_id, rel_deadline, rel_units, rel_used
  if release ~= '' then
    rel_id, rel_deadline, rel_units, rel_used = string.match(release, '^(%S+) (%d+) (%d+) (%d+)$')
  end

  local levels = {}
  local wait = 0
  for i = 1, n do
    local capacity = tonumber(ARGV[a + 2 * i + 4])
    local refill = tonumber(ARGV[a + 2 * i + 5])
    local key = KEYS[k + i]
    local b = buckets[key]
    if b == nil then
      local stored = redis.call('HMGET', key, 'tokens', 'ts', 'held', 'sweep', 'hold_end')
      local l, s = tonumber(stored[1]), tonumber(stored[2])
      if l ~= nil and s ~= nil then
        b = {l, s, tonumber(stored[3]) or 0, tonumber(stored[4]), tonumber(stored[5]) or 0, stored[4] ~= false}
      else
        local level = capacity
        local ts = now
        local lost = lost_at()
        if lost > 0 then
          ts = math.max(now, lost + hold)
          level = math.min(capacity, (now - lost - hold) * refill / 1000000)
          level = math.max(0, level)
        end
        b = {level, ts, 0, nil, 0, false}
      end
      buckets[key] = b
    end
    -- Never backwards: a clock behind the stored time decides as of the stored time.
    local at = math.max(now, b[2])
    refill_to(key, b, capacity, refill, at)
    if rel_id then
      local field = 'lease:' .. rel_id
      if b[4] ~= nil and redis.call('HGET', key, field) == rel_deadline .. ' ' .. rel_units then
        local units = tonumber(rel_units)
        b[3] = b[3] - units
        b[1] = math.min(capacity - b[3], b[1] + math.max(0, units - tonumber(rel_used)))
        redis.call('HDEL', key, field)
        touch(key)
      end
    end
    levels[i] = b[1]
    -- The units this bucket must hold: the event's cost, or all it can hold.
    local must = math.min(need, capacity)
    if b[1] + 1e-9 < must then
      wait = math.max(wait, (at - now) + math.ceil((must - b[1]) * 1000000 / refill))
    end
  end

  local granted = 0
  local extra = 0
  local lease_end = 0
  local lease_id = ''
  if wait == 0 then
    granted = need
    -- A lease: whole units every bucket holds beyond the need (no epsilon: held units are whole).
    if want > need and hold > 0 then
      extra = want - need
      for i = 1, n do
        extra = math.min(extra, math.floor(levels[i]) - need)
      end
      extra = math.max(0, extra)
    end
    if extra > 0 then
      lease_end = now + hold
      lease_id = string.format('%.0f', now) .. '.' .. e
    end
    for i = 1, n do
      local key = KEYS[k + i]
      local b = buckets[key]
      -- (The level as a stored string would read back: %.17g round-trips a double exactly.)
      b[1] = b[1] - need - extra
      if extra > 0 then
        b[3] = b[3] + extra
        b[4] = b[4] == nil and lease_end or math.min(b[4], lease_end)
        b[5] = math.max(b[5], lease_end)
        redis.call('HSET', key, 'lease:' .. lease_id, string.format('%.0f %d', lease_end, extra))
      end
      touch(key)
    end
  end

  local o = #reply
  reply[o + 1] = granted
  reply[o + 2] = now
  reply[o + 3] = wait
  reply[o + 4] = extra
  reply[o + 5] = lease_end
  reply[o + 6] = lease_id
  for i = 1, n do
    reply[o + 6 + i] = string.format('%.17g', levels[i])
  end
  return n
end

-- Each bucket's shape, by key, for its TTL (the last event that named it).
local shapes = {}
local a = 0
local k = 0
local e = 0
while a < #ARGV do
  e = e + 1
  local n = decide(a, k, e)
  for i = 1, n do
    shapes[KEYS[k + i]] = {tonumber(ARGV[a + 2 * i + 4]), tonumber(ARGV[a + 2 * i + 5])}
  end
  a = a + 5 + 2 * n
  k = k + n + 1
end
-- Every changed bucket written once, as the call left it; it expires once every lease has ended
-- and it is full again.
for _, key in ipairs(changed) do
  local b = buckets[key]
  local capacity, refill = shapes[key][1], shapes[key][2]
  local fields = {'tokens', string.format('%.17g', b[1]), 'ts', string.format('%.0f', b[2])}
  if b[4] ~= nil then
    table.insert(fields, 'held')
    table.insert(fields, string.format('%d', b[3]))
    table.insert(fields, 'sweep')
    table.insert(fields, string.format('%.0f', b[4]))
    table.insert(fields, 'hold_end')
    table.insert(fields, string.format('%.0f', b[5]))
  elseif b[6] then
    -- Its last lease ended or was let go in this call.
    redis.call('HDEL', key, 'held', 'sweep', 'hold_end')
  end
  redis.call('HSET', key, unpack(fields))
  local held_for = 0
  if b[4] ~= nil then
    held_for = math.max(0, b[5] - b[2])
  end
  redis.call('PEXPIRE', key, math.ceil((held_for + (capacity - b[1]) * 1000000 / refill) / 1000) + 1000)
end
return reply
