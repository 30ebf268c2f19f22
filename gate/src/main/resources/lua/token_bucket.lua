--[[
Sluice: one tenant's weighted token bucket toward one provider, decided atomically.

Why one script: refill, charge, reservation and lease bookkeeping must read and write the bucket
in one step, or two gate instances could both see the same tokens. Redis runs a script alone, so
the script is the lock.

Why Redis TIME: every gate instance asks the same clock, so clock skew between gate machines can
never change a decision. A clock that steps backwards (a failover to a replica whose clock is
behind) never refills backwards: the stored timestamp only moves forward.

The bucket and its reservations (the model the Java mirror TokenBucketMath follows line by line):
  level   tokens in the bucket. It goes NEGATIVE when units are reserved ahead:
          -5 means the next 5 units of refill already belong to events waiting in the delay ladder.
  Unit j (1-based) of a charge made when the level was L is due at
          now + max(0, (j - L) / refill)   seconds
  (beside an old line, when the refill beside it reaches j - L: see "A change of rate").
  The reservation horizon bounds the debt: a unit may be charged only if it is due within horizon,
  so level never goes below -(refill * horizon) through ordinary charges. An event whose units do
  not fit is not charged; it gets a ticket instead: a place in the bucket's waiting line ("line",
  the time at which the line's last place is served). It comes back at its ticket time as a ticket
  holder and is charged then against the holders' reach instead of the horizon: reach = horizon +
  max(horizon, 1 s). It already waited its turn, but events that fit the horizon may have taken
  its room meanwhile (a late return), so its units may sit past the horizon; the room between the
  horizon and the reach is for holders only, so newcomers never crowd one out, and an event
  deferred unpaid is normally gated at most twice. A holder whose units do not fit even the reach
  (many came back late together) is queued again like a new event; one that could never fit it
  (a cost above capacity + refill * reach) is charged once the bucket is full. So no ordinary
  charge (of a cost within that) leaves the level below -(refill * reach), which is what a bucket
  rebuilt after a loss relies on
  (see "Lost data"). Units the local fallback admitted while Redis was away (holder "2", owed) are
  charged whatever the level: they are spent already.

Places in line (the over-limit cache):
  When an event is queued, the caller may take more places in line than its need (want units of
  line, not need): later events of the same bucket at that instance take the following places
  locally, each at its exact turn, without a round trip. They come back as ticket holders like
  any queued event. Places are only a schedule for unpaid events: they charge nothing, so they
  cannot over-admit; unused ones are given back when the line still ends with them.

Leases (why the bucket knows about them):
  A caller may take units beyond its event's need and hand them out later, one event at a time,
  so that a busy tenant costs one round trip per lease rather than one per event. A unit charged
  now but used later is a token saved outside the bucket: if the bucket meanwhile refilled to
  capacity, level + saved units could exceed capacity and a burst could pass capacity + rate*T.
  So the bucket records every lease until it ends ("held" units) and refills only up to
  capacity - held. Then level + (units still unused in leases) <= capacity at every instant, and
  the two together behave like one bucket of the configured capacity: invariant 1 holds however
  late a leased unit is used, as long as it is used before its lease ends.
    A lease's units are of two kinds, split by the level L before the charge (unit i of the lease
    is unit need + i of the charge, due at now + max(0, (need + i - L) / refill)):
    - units the bucket held (need + i <= L, "imm"): due at once, and the caller may hand them out
      at any time before the end of use. These are the saved tokens above: only they count in
      "held" and lower the cap.
    - reserved units (need + i > L): refill that has not arrived yet. The caller hands one out
      only before its due time, as a reservation at that time; it never spends one later. A
      reserved unit left unused past its due time would be spent as if the bucket had stored it,
      yet the bucket stores no refill beyond its cap: with a bucket of 5 at 10/s, nine reserved
      units left idle for 900 ms would let nine events go together. (GateIT found this: six
      admissions in 33 ms from a bucket of 5.) So a reserved unit that falls due unused is lost
      (stricter, never looser), and a release gives back only the reserved units still ahead of
      their due time on this clock, and only while no unit was charged after the lease's last (the
      line of reservations still ends with it): those are reservations cancelled before they
      began. Given back from the middle of the line, they would move its end back over units sold
      after them, and those due times would be sold twice.
    A lease ends in one of two ways:
    - released: the caller names it and says how many of its units it used (always the first
      ones); the unused held units and the unused reserved units not yet due return to the level
      (never above capacity - the remaining held), and the cap rises by the lease's held units;
    - expired: at its deadline the cap rises and the unused units are lost (stricter, never
      looser). The caller stops using a lease well before its deadline (judged on an upper
      bound of this clock), so no unit is used after Redis has let it go.
  Between two calls the cap steps up at each expiry, so refill is computed piecewise: up to each
  deadline under the cap that held then. Using today's cap for the whole gap would hand out the
  refill that the cap clipped earlier.

Lost data (Redis restarted without persistence, FLUSHALL):
  A missing bucket is normally a full one: its key expires only once it would be full again with
  no lease and no reservation outstanding. But if Redis lost it, events it reserved may still wait
  paid in the ladder, and a full bucket beside them is a burst of up to capacity + a horizon of
  reservations. The script cannot tell the two apart from the bucket, so each cluster slot has a
  marker with no TTL: "0" (set where missing when a gate starts) means nothing was lost; missing
  means the slot's data was lost, and the script stores the time it found that out ("lost").
  A bucket lost at that time held at least -(refill * reach): reservations reach at most the
  holders' reach ahead (owed units of the local fallback aside, see the README). So a bucket Redis
  does not have starts as the worst the lost one could have been: empty with a full reach of
  reservations at the loss, refilled since, min(capacity, (now - lost - reach) * refill). A bucket
  that leased may also have had its whole capacity in live leases at the loss, which their holders
  spend until the leases end, up to hold_us after it (its cap was 0 until then): so a caller that
  leases names its hold on every call (ARGV[7], whatever its want), and the bucket starts at
  min(capacity, (now - lost - max(reach, hold)) * refill). (Rebuilt from the reach alone, a hold
  longer than the reach sold the capacity twice: the holders' and the rebuilt bucket's; issue 34,
  TokenBucketSpecification row "lost while leased".) Every
  admission then, lost or new, is one a single bucket of the configured size could have made:
  admissions stay within capacity + refill * T across the loss. (Starting at capacity minus a
  horizon would not be enough: the lost bucket may have spent its capacity just before.) One
  reach plus the time to refill after a loss, a missing bucket is full again.
  The rebuilt debt is reservations at the rate in force now, but the lost ones were sold at the
  rates in force before the loss, which Redis lost with the bucket: a cut between the loss and the
  bucket's first call after it (or a loss within a reach after a cut) rebuilds it at the lower
  rate. So until lost + max(reach, hold) ("lost_end") a change of rate reads its debt as sold at
  no rate it knows: a raise folds it back (see "A change of rate") instead of opening an old line
  at the stored rate beside which it would sell while the lost reservations ran at the higher one
  (issue 34: lost, cut from 8.68/s to 3.53/s before the first call, raised back: 46 units in
  4.12 s where 45.75 are allowed). Without a change the rebuilt bucket sells nothing due before
  lost_end anyway.
  Not detected (see the README): data that comes back older rather than lost (from a snapshot,
  or a lagging replica) keeps its marker, and so does a slot whose buckets alone were evicted
  (run Redis with maxmemory-policy noeviction).

A change of rate (the quota changed: a registry record, a reload):
  Reservations already sold keep their due times and count against the new rate: at the old
  rate they still go out as sold. Left in units, a raise would repay them at the new rate before
  selling again (a full horizon of debt at 2/s raised to 8/s: nothing new for 7.5 s), and then
  sell the new rate beside them (10/s for 22 s). So the bucket keeps the rate it last decided at
  ("rate") while it owes reservations or has an old line, and on a change, as of the stored time,
  looks at what was sold: the old line, if any, and the level's debt, reservations at up to the
  old rate (with the old line) due by the time the old refill repays the debt. Then:
  - kept as it is (the level in units, the old line too), when the new rate is at least the old
    line's and the debt, repaid at the new rate beside the old line, ends no sooner than its
    reservations: nothing new can be due among them. This is every cut without an old line (the
    single-rate rule, as before) and a raise back after a cut. After a cut the rate they were sold
    at and the end of them are kept beside the rate ("rate" = "rate end top"), since the debt is
    then partly time not sold; and until it is repaid (level >= 0) nothing is reserved (horizon
    and reach 0): a unit is sold only once the bucket holds it, so none falls due among the old
    reservations or lengthens them. A change undone at once (a stale read of the quota decides
    one event by the old one) so costs only the moment it lasted.
  - else, at a raise: the debt moves into one old line ("old": its rate and end) no slower and no
    shorter than what was sold (the old line and the debt's reservations, at the higher rate until
    the later end), and the level starts at 0 beside it. Until the old line ends the bucket refills
    at new - old (what the new rate leaves beside it), then at the new rate: new events get
    new - old at once, and the two together never more than the new rate in any window.
  - else (a cut below the old line's rate, or a raise while the debt may hold reservations
    sold at a rate Redis lost, until "lost_end"): everything sold folds back into units (the old line's
    units still to come with the debt), repaid at the new rate, and the level is set no higher than
    the new rate would refill before the last reservation: nothing new is due before it.
  Every live lease's reserved units fell due on the old refill: none of them goes back on release
  (the lease's lead becomes its units). A capacity change is only the cap: room, not tokens.
  A bucket within its quota (level >= 0, no old line) stores neither field: a change then needs
  nothing (no reservation to keep), and it stays as small as before.
  Units are whole: an event of the old line is due when its last unit has refilled, so a window
  that holds one of them beside what the new rate sold may hold up to one such event more, per
  change, than a single bucket at the new rate would (TokenBucketRateChangeProperties).

Shadow mode (a provider or a tenant being tuned, never held back):
  The caller admits every event whatever the answer, so the bucket must not lend it anything:
  an event whose units the bucket holds now (need <= level) is charged as usual (a lease, if
  asked, only of units the bucket holds, never reserved ones); any other event is not charged,
  not queued and takes no place in line: the script writes only what refill and releases
  already wrote, and answers granted 0 with, as ticket, the wait the event alone would have had
  (until its last unit was due, or until its turn in the line). So shadow traffic never leaves
  the bucket in debt or its line longer: once the limit is enforced, it starts from a bucket
  charged only with the events that fitted.

One call decides one request or a batch of N (the gate sends its cold tenants' events together):
request i has KEYS[2i-1], KEYS[2i] and ARGV[10(i-1)+1 .. 10i], laid out as below for i = 1, and
gets answers [9(i-1)+1 .. 9i]. The requests are decided in order, at one Redis time, each exactly
as if it came alone: a batch is only fewer round trips. (In a Redis Cluster every key of one call
is in one slot: the caller groups requests by slot.)

KEYS[1]   the bucket hash, e.g. sluice:v1:{payments-api:acme}:tb (hash-tagged: one cluster slot)
KEYS[2]   the marker of that slot, sluice:v1:{~tag}:marker (SlotMarkers: a tag of the same slot)
ARGV[1]   capacity     bucket size in cost units, > 0
ARGV[2]   refill       cost units per second, > 0
ARGV[3]   want         units the caller would like, >= need; units beyond need form a lease
ARGV[4]   need         units the current event must have (its cost), >= 1
ARGV[5]   horizon_us   reservation horizon, microseconds, >= 0
ARGV[6]   holder       "1" when the event holds a ticket (charged within the reach), "2" for units
                       the local fallback admitted (charged whatever the level), else "0"
ARGV[7]   hold_us      how long the bucket holds a new lease, microseconds (> 0 when want > need;
                       a caller that leases sends it on every call: see "Lost data")
ARGV[8]   release      a lease to release first: "id deadline_us units used", or "" for none.
                       It is released only if the bucket still holds exactly that lease.
ARGV[9]   places       places in line to give back first: "line_end_us unused", or "" for none.
                       They are given back only if the line still ends at line_end_us (nobody
                       queued behind them); otherwise they stay as a gap, which only delays later
                       events (stricter, never looser).
ARGV[10]  shadow       "1": shadow mode (see above), else "0" (or absent when N = 1)

Stored fields (all strings):
  tokens   the level after the last update (may be negative)
  ts       Redis time of the last update, microseconds since the epoch
  line     end of the waiting line, microseconds since the epoch (absent: no line)
  held     units the bucket held that leases not yet ended hold (absent: 0); the cap is
           capacity - held
  live     leases not yet ended (absent: 0)
  seq      the id of the last lease granted (absent: none yet)
  lease:N  lease N: "deadline_us units imm granted_us lead": its units beyond need, how many of
           them the bucket held, the time of the grant and lead = L - need, so that its unit i
           is due at granted_us + max(0, (i - lead) / refill)
  sweep    no lease ends before this time (a lower bound; absent when live is 0)
  hold_end no lease ends after this time (absent when live is 0)
  rate     the refill of the last decision, as sent, while the level is negative or an old line
           runs (absent otherwise; see "A change of rate"); after a cut that kept the debt,
           "rate end top": when the reservations it owes end and the rate they were sold at,
           until it is repaid
  old      the old line while it runs: "rate end_us" (absent: none)
  lost_end a bucket rebuilt after a loss: when the last reservation the lost bucket may have sold
           is due, lost + max(reach, hold); absent once that has passed (see "Lost data")

Returns an array of nine:
  [1] granted      integer: units charged (0: none, see [4])
  [2] level        string: the level before this charge, after refill and release (a decimal)
  [3] now_us       integer: the Redis time of the decision, microseconds
  [4] ticket_us    integer: when granted = 0, how long from now until the event's turn (in shadow
                   mode: the wait it would have had); else 0
  [5] lease_id     integer: the id of the lease of granted - need units, 0 when there is none
  [6] lease_end    integer: that lease's deadline, microseconds (0 when there is none)
  [7] line_end     string: when the event was queued, the end of the line after its places, as
                   stored (microseconds); else "0"
  [8] old_rate     string: the old line's rate while it runs (a decimal), else "0": the bucket
                   refills at refill - old_rate until [9], so unit j is due when that refill
                   reaches it (the Java Refill)
  [9] old_end      integer: when the old line ends, microseconds (0 when there is none)

The key expires once every lease has ended, the bucket would be full again, its line has passed
and its old line ended (plus a second): an expired key reads as a full bucket with no leases, exactly what it would
hold by then.
]]

-- Units refilled from `from` to `to` at `rate`, beside an old line of `old_rate` until `old_end`
-- (old_end 0: none; see "A change of rate"). The Java mirror's Refill, in the same order.
local function gain(rate, old_rate, old_end, from, to)
  if to <= from then
    return 0
  end
  if old_end > from then
    local g = (math.min(to, old_end) - from) * (rate - old_rate) / 1000000
    if to > old_end then
      g = g + (to - old_end) * rate / 1000000
    end
    return g
  end
  return (to - from) * rate / 1000000
end

-- Microseconds from `from` until `units` more have refilled (0 for none), likewise.
local function wait(rate, old_rate, old_end, from, units)
  if units <= 0 then
    return 0
  end
  local us_per_unit = 1000000 / rate
  if old_end > from then
    local first = (old_end - from) * (rate - old_rate) / 1000000
    if units <= first then
      return units * 1000000 / (rate - old_rate)
    end
    return (old_end - from) + (units - first) * us_per_unit
  end
  return units * us_per_unit
end

local t = redis.call('TIME')
local clock = tonumber(t[1]) * 1000000 + tonumber(t[2])
-- Each slot's marker, all read at once by one MGET (a command per request was a tenth of a cold
-- decision's cost): the value, or false for a marker Redis does not have. Reading a marker before
-- its bucket is found missing changes nothing: the script runs alone, and a marker it sets is
-- written here too.
local markers = {}
local answers = {}
do
  local names = {}
  for i = 2, #KEYS, 2 do
    if markers[KEYS[i]] == nil then
      markers[KEYS[i]] = false
      names[#names + 1] = KEYS[i]
    end
  end
  -- (In slices: unpack passes at most a few thousand values at once.)
  for from = 1, #names, 512 do
    local to = math.min(#names, from + 511)
    local got = redis.call('MGET', unpack(names, from, to))
    for i = from, to do
      markers[names[i]] = tonumber(got[i - from + 1]) or false
    end
  end
end

-- Request i of the call: its bucket kb, its slot's marker km, its arguments from ARGV[o + 1].
local function decide(kb, km, o)
  local capacity = tonumber(ARGV[o + 1])
  local refill = tonumber(ARGV[o + 2])
  local want = tonumber(ARGV[o + 3])
  local need = tonumber(ARGV[o + 4])
  local horizon = tonumber(ARGV[o + 5])
  local holder = ARGV[o + 6] == '1'
  local owed = ARGV[o + 6] == '2'
  local hold = tonumber(ARGV[o + 7])
  local release = ARGV[o + 8]
  local places = ARGV[o + 9]
  local shadow = ARGV[o + 10] == '1'
  local us_per_unit = 1000000 / refill
  -- How far ahead a ticket holder may be charged (see "The bucket and its reservations").
  local reach = horizon + math.max(horizon, 1000000)

  local now = clock

  local stored = redis.call('HMGET', kb, 'tokens', 'ts', 'line', 'held', 'seq', 'sweep', 'hold_end', 'live',
    'rate', 'old', 'lost_end')
  local level = tonumber(stored[1])
  local ts = tonumber(stored[2])
  local line = tonumber(stored[3]) or 0
  local held = tonumber(stored[4]) or 0
  local seq = tonumber(stored[5]) or 0
  local sweep = tonumber(stored[6])
  local hold_end = tonumber(stored[7]) or 0
  local live = tonumber(stored[8]) or 0
  local lost_end = tonumber(stored[11]) or 0
  if level == nil or ts == nil then
    -- The slot's marker, read only for a bucket Redis does not have (the one case it decides):
    -- missing means Redis lost this slot's data (a restart without persistence, FLUSHALL, an
    -- eviction of the marker); it then records when that was found. (A loss found later than it
    -- happened only makes the rebuilt buckets stricter.)
    local lost = markers[km]
    if not lost then
      lost = now
      redis.call('SET', km, string.format('%.0f', now))
      markers[km] = lost
    end
    level = capacity
    ts = now
    -- After a loss, a bucket Redis does not have may have been empty with a horizon of
    -- reservations whose events wait paid in the ladder: it starts as that bucket, refilled since
    -- (see "Lost data" above).
    -- With leases, its whole capacity may also have been leased out, spendable until the
    -- leases end, up to hold after the loss (the cap stayed 0 until then): it refills from the
    -- later of the two.
    if lost > 0 then
      level = math.min(capacity, (now - lost - math.max(reach, hold)) * refill / 1000000)
      -- Its reservations were sold at the rates in force before the loss, which Redis lost with
      -- it: the rate now may be a cut since. Until they are all due, a change of rate must not
      -- read the debt as sold at the rate stored with it (issue 34).
      lost_end = lost + math.max(reach, hold)
      if lost_end <= now then
        lost_end = 0
      end
    end
  end

  -- Never backwards: if Redis time is behind the stored time, decide as of the stored time.
  if now < ts then
    now = ts
  end

  -- The old line, while it runs (see "A change of rate").
  local old_rate = 0
  local old_end = 0
  if stored[10] then
    local r, e = string.match(stored[10], '^(%S+) (%d+)$')
    if tonumber(e) > ts then
      old_rate = tonumber(r)
      old_end = tonumber(e)
    end
  end
  -- A change of rate, taken as of the stored time: what was sold keeps its due times and counts
  -- against the new rate.
  local was, was_end, was_top
  if stored[9] then
    local r, e, tp = string.match(stored[9], '^(%S+) ?(%S*) ?(%S*)$')
    was = tonumber(r)
    was_end = tonumber(e) or 0
    was_top = tonumber(tp) or 0
  end
  local top = 0
  local debt_end = 0
  if was ~= nil and was ~= refill then
    -- What was sold: the old line, and the level's debt, reservations at up to sold_top (with
    -- the old line) due by `ends` (the rest of the debt, after a cut, is not sold time).
    local debt = math.max(0, -level)
    local ends = ts
    local sold_top = 0
    if debt > 0 then
      if was_end > 0 then
        ends = was_end
      else
        ends = ts + math.ceil(wait(was, old_rate, old_end, ts, debt))
      end
      if was_top > 0 then
        sold_top = was_top
      else
        sold_top = was
      end
    end
    -- After a loss, until the lost bucket's last reservation is due: the debt holds reservations
    -- sold at a rate Redis lost (the quota may have been cut since, before the bucket was rebuilt
    -- at the new rate), so no rate it could name is a floor for them: a raise does not open an
    -- old line beside them, it folds them back, and nothing new is due before they end.
    local sold_at_a_lost_rate = debt > 0 and lost_end > ts
    if refill >= old_rate and (debt == 0 or ts + wait(refill, old_rate, old_end, ts, debt) >= ends) then
      -- Kept as it is: the debt repaid at the new rate beside the old line ends no sooner than
      -- its reservations, so nothing new is due among them (a cut, or a raise back after one).
      if debt > 0 and refill < sold_top then
        top = sold_top
        debt_end = ends
      end
    else
      -- One old line no slower and no shorter than what was sold.
      local sold_rate = old_rate
      if debt > 0 then
        sold_rate = math.max(sold_top, old_rate)
      end
      local sold_end = math.max(ends, old_end)
      if sold_rate <= refill and not sold_at_a_lost_rate then
        -- A raise: the new rate sells beside the old line at once.
        if debt > 0 then
          level = 0
        end
        old_rate = sold_rate
        old_end = sold_end
      else
        -- Cut below what runs, or a debt sold at a lost rate: all that was sold folds back into
        -- units, repaid at the new rate; nothing new is due before what was sold ends.
        local units = debt + math.max(0, old_end - ts) * old_rate / 1000000
        level = -math.max(units, (sold_end - ts) * refill / 1000000)
        top = sold_rate
        debt_end = sold_end
        old_rate = 0
        old_end = 0
      end
    end
    -- A lease granted before: its reserved units fell due on the old refill; none goes back
    -- (its lead becomes its units).
    if live > 0 then
      local fields = redis.call('HGETALL', kb)
      for i = 1, #fields, 2 do
        if string.sub(fields[i], 1, 6) == 'lease:' then
          local d, k, imm, g = string.match(fields[i + 1], '^(%d+) (%d+) (%d+) (%d+) ')
          redis.call('HSET', kb, fields[i], d .. ' ' .. k .. ' ' .. imm .. ' ' .. g .. ' ' .. k)
        end
      end
    end
  elseif was ~= nil then
    top = was_top
    debt_end = was_end
  end

  -- Leases that ended by now, in deadline order: refill up to each deadline under the cap of the
  -- time, then let the lease go.
  if live > 0 and sweep ~= nil and sweep <= now then
    local fields = redis.call('HGETALL', kb)
    local ended = {}
    local next_sweep = nil
    for i = 1, #fields, 2 do
      if string.sub(fields[i], 1, 6) == 'lease:' then
        local d, imm = string.match(fields[i + 1], '^(%d+) %d+ (%d+) ')
        d = tonumber(d)
        if d <= now then
          table.insert(ended, {d, tonumber(imm), fields[i]})
        elseif next_sweep == nil or d < next_sweep then
          next_sweep = d
        end
      end
    end
    table.sort(ended, function(a, b) return a[1] < b[1] end)
    for _, e in ipairs(ended) do
      if e[1] > ts then
        level = math.min(capacity - held, level + gain(refill, old_rate, old_end, ts, e[1]))
        ts = e[1]
      end
      held = held - e[2]
      live = live - 1
      redis.call('HDEL', kb, e[3])
    end
    sweep = next_sweep
  end

  if now > ts then
    level = math.min(capacity - held, level + gain(refill, old_rate, old_end, ts, now))
    ts = now
  end

  -- A lease the caller is done with: its unused held units return, and so do its unused reserved
  -- units still ahead of their due time; its cap is lifted.
  if release ~= '' then
    local id, deadline, units, used = string.match(release, '^(%d+) (%d+) (%d+) (%d+)$')
    local field = 'lease:' .. id
    local rec = redis.call('HGET', kb, field)
    local d, k, imm, granted_at, lead
    if rec then
      d, k, imm, granted_at, lead = string.match(rec, '^(%d+) (%d+) (%d+) (%d+) (%S+)$')
    end
    if d == deadline and k == units then
      k = tonumber(k)
      imm = tonumber(imm)
      used = tonumber(used)
      held = held - imm
      live = live - 1
      local back = math.max(0, imm - used)
      -- Lease unit i is ahead of its due time iff i > lead + (now - granted_at) * refill.
      local since = gain(refill, old_rate, old_end, tonumber(granted_at), now)
      local ahead_from = math.floor(tonumber(lead) + since) + 1
      local ahead = math.max(0, k - math.max(used, imm, ahead_from - 1))
      -- They go back only while the reservations still end with the lease's last unit: once units
      -- were charged after it, giving them back would sell those units' due times again (the gap
      -- the lease leaves stays in the middle). Then they are lost: stricter, never looser.
      local lease_end_level = tonumber(lead) - k + since
      if level < lease_end_level - 1e-6 then
        ahead = 0
      end
      back = back + ahead
      level = math.min(capacity - held, level + back)
      redis.call('HDEL', kb, field)
    end
  end

  -- Places the caller did not use, if the line still ends with them.
  if places ~= '' then
    local line_end, unused = string.match(places, '^(%d+) (%d+)$')
    if stored[3] == line_end then
      line = line - tonumber(unused) * us_per_unit
    end
  end

  if level >= 0 then
    -- Repaid: nothing of a cut is owed any more.
    top = 0
    debt_end = 0
  end
  -- Until then, while a cut's debt is repaid, nothing is reserved: new units are sold only once
  -- the bucket holds them, so none falls due among the old reservations or extends them.
  if debt_end > 0 then
    horizon = 0
    reach = 0
  end

  local before = level

  -- The most units whose due time is within the horizon: j <= level + refill * horizon.
  -- The epsilon absorbs the rounding of the division so an exact fit is a fit.
  local fit = math.floor(level + gain(refill, old_rate, old_end, now, now + horizon) + 1e-9)

  local granted = 0
  local ticket = 0
  if shadow then
    -- Shadow mode: charge only units the bucket holds now; otherwise write no debt and no line,
    -- and answer with the wait the event would have had (see "Shadow mode" above).
    -- No epsilon here: a lease's units count as held by the same floor (imm below), so every
    -- unit granted in shadow mode is one the bucket holds, none reserved.
    local held_now = math.floor(level)
    if need <= held_now then
      granted = math.min(want, held_now)
    elseif need <= fit then
      ticket = math.ceil(wait(refill, old_rate, old_end, now, need - level))
    else
      local open = now + wait(refill, old_rate, old_end, now, need - level) - horizon
      ticket = math.ceil(math.max(open, line) - now)
    end
  elseif want <= fit then
    granted = want
  elseif need <= fit then
    granted = fit
  elseif owed or (holder and (need <= math.floor(level + gain(refill, old_rate, old_end, now, now + reach) + 1e-9)
      or (need > capacity - held + gain(refill, old_rate, old_end, now, now + reach)
          and level >= capacity - held - 1e-9))) then
    -- (A holder costing more than the bucket could ever fit within the reach, possible only
    -- with a maxCost above capacity + refill * reach, is charged once the bucket is full.)
    granted = need
  else
    -- Not charged. The horizon has room for `need` units at `open`; the line serves in order.
    local open = now + wait(refill, old_rate, old_end, now, need - level) - horizon
    local turn = math.max(open, line)
    line = turn + want * us_per_unit
    ticket = math.ceil(turn - now)
  end
  level = level - granted
  if debt_end > 0 and granted > 0 and not owed and level < 0 then
    -- Sold now: the last reservation is the last unit of the debt.
    debt_end = math.max(debt_end, now + math.ceil(wait(refill, old_rate, old_end, now, -level)))
  end

  local lease_id = 0
  local lease_end = 0
  -- The new lease's field is written with the bucket's other fields, in the one HSET below: each
  -- command a script runs costs Redis about as much as the arithmetic around it.
  local lease_field = nil
  if granted > need then
    seq = seq + 1
    lease_id = seq
    lease_end = now + hold
    local lead = before - need
    local imm = math.max(0, math.min(granted - need, math.floor(lead)))
    held = held + imm
    live = live + 1
    lease_field = {'lease:' .. seq,
      string.format('%.0f %d %d %.0f %s', lease_end, granted - need, imm, now, string.format('%.17g', lead))}
    if sweep == nil or lease_end < sweep then
      sweep = lease_end
    end
    hold_end = math.max(hold_end, lease_end)
  end

  local fields = {'tokens', string.format('%.17g', level), 'ts', string.format('%.0f', ts)}
  if lease_field then
    -- seq is written only when it moves: a bucket that never leased stores no seq (absent: 0).
    table.insert(fields, 'seq')
    table.insert(fields, string.format('%d', seq))
    table.insert(fields, lease_field[1])
    table.insert(fields, lease_field[2])
  end
  local line_end = '0'
  if line > now then
    line_end = string.format('%.0f', line)
    table.insert(fields, 'line')
    table.insert(fields, line_end)
  elseif stored[3] then
    redis.call('HDEL', kb, 'line')
  end
  if granted > 0 or shadow then
    line_end = '0'
  end
  if held > 0 then
    table.insert(fields, 'held')
    table.insert(fields, string.format('%d', held))
  elseif stored[4] then
    redis.call('HDEL', kb, 'held')
  end
  if live > 0 then
    for _, f in ipairs({'live', string.format('%d', live), 'sweep', string.format('%.0f', sweep),
                        'hold_end', string.format('%.0f', hold_end)}) do
      table.insert(fields, f)
    end
  elseif stored[8] then
    redis.call('HDEL', kb, 'live', 'sweep', 'hold_end')
  end
  -- The rate while the bucket owes reservations or has an old line (a change of it then matters),
  -- the old line while it runs; neither otherwise (a bucket within its quota stores no more).
  local old = old_end > now
  if level < 0 or old then
    table.insert(fields, 'rate')
    if level < 0 and debt_end > 0 then
      table.insert(fields, ARGV[o + 2] .. ' ' .. string.format('%.0f %.17g', debt_end, top))
    else
      table.insert(fields, ARGV[o + 2])
    end
  elseif stored[9] then
    redis.call('HDEL', kb, 'rate')
  end
  if old then
    table.insert(fields, 'old')
    table.insert(fields, string.format('%.17g %.0f', old_rate, old_end))
  elseif stored[10] then
    redis.call('HDEL', kb, 'old')
  end
  if lost_end > now then
    table.insert(fields, 'lost_end')
    table.insert(fields, string.format('%.0f', lost_end))
  elseif stored[11] then
    redis.call('HDEL', kb, 'lost_end')
  end
  redis.call('HSET', kb, unpack(fields))

  -- Full again once every lease has ended, the level has refilled from where it is now and the
  -- old line has ended (a bucket read as missing has none).
  local until_full = wait(refill, old_rate, old_end, now, capacity - level)
  if old then
    until_full = math.max(until_full, old_end - now)
  end
  if live > 0 then
    until_full = until_full + math.max(0, hold_end - now)
  end
  local until_line = line - now
  local ttl_ms = math.ceil(math.max(until_full, until_line, 0) / 1000) + 1000
  redis.call('PEXPIRE', kb, ttl_ms)

  -- Whole numbers go back as integers (Redis replies with a Lua number's integer part; each of
  -- these is whole, and below 2^53): a string.format per field was a tenth of a cold decision.
  local o = #answers
  answers[o + 1] = granted
  answers[o + 2] = string.format('%.17g', before)
  answers[o + 3] = now
  answers[o + 4] = ticket
  answers[o + 5] = lease_id
  answers[o + 6] = lease_end
  answers[o + 7] = line_end
  if old then
    answers[o + 8] = string.format('%.17g', old_rate)
    answers[o + 9] = old_end
  else
    answers[o + 8] = '0'
    answers[o + 9] = 0
  end
end

for i = 1, #KEYS / 2 do
  decide(KEYS[2 * i - 1], KEYS[2 * i], 10 * (i - 1))
end
return answers
