--[[
Sluice: one provider's leak, shared by every dispatcher instance, decided atomically.

The model, with worked numbers and the proof of "at most rate*T + 1 calls in any window T", is in
the class comment of LeakMath.java, which this script follows line by line (a specification table
runs against both, and the script must agree with LeakMath exactly when fed the script's clock).
In short: slots are spaced interval = ceil(1e6 / (rate * factor)) microseconds apart; a claim
takes up to `wanted` slots no later than now + lookahead; a missing `last` (a new key, or one
Redis lost) reads as now + lookahead, the latest a lost slot can have been; a 429 pauses the leak
until now + Retry-After, and halves the factor (not below min_factor) only when it is a repeat: a
call claimed at or after the previous pause ended, less than `recovery` ago; the factor climbs back
linearly to 1 over `recovery`.

Why one script: the read of the last slot and the write of the new one must be one step, or two
instances could both take the same slot. Redis runs a script alone, so the script is the lock.

Why Redis TIME: every instance asks the same clock, so the slots of different instances are on
one timeline whatever the skew between dispatcher machines. The caller turns a slot into a local
delay as slot - now_us (both on this clock). The clock never goes back: the stored ts only moves
forward, and decisions are made as of max(ts, TIME).

KEYS[1]   the provider's hash: sluice:v1:{<provider>}:leak (hash-tagged: one cluster slot)
ARGV[1]   mode         "claim" or "throttled"
ARGV[2]   rate         configured calls per second, > 0
ARGV[3]   min_factor   the deepest cut, in (0, 1]
ARGV[4]   recovery_us  how long a cut takes to recover fully, microseconds, > 0
mode claim:
ARGV[5]   wanted       slots the caller would like, >= 1
ARGV[6]   lookahead_us how far past now a slot may lie, microseconds, >= 0
mode claim, with limits beyond the rate (LimitMath.java is this part line by line):
ARGV[7]   n            limits beyond the rate, >= 0 (absent: 0, the leak alone as above)
ARGV[8]   slot_cost    cost units each granted slot reserves in every cost limit, >= 1
ARGV[9]   lease_prefix slot i of this claim holds lease lease_prefix..':'..i (concurrency)
ARGV[10]  lease_us     a lease not released expires this long after its slot
ARGV[11 + 5(i-1) ..]   limit i: kind ('calls', 'cost', 'concurrency'), amount, per_us, window
                       ('sliding', 'fixed', '-'), margin_us; its key is KEYS[1 + i]:
                       sluice:v1:{<provider>}:limit:<id>, same hash tag as KEYS[1]
  sliding: a sorted set of granted slots, score the slot, member '<slot>:<weight>'
  sliding with per_us > 60000000 (coarse; WindowLedger.isCoarse): a hash, field the sub-window
           index floor(slot / g), g = ceil((per + margin) / 60), value the units charged there.
           A key still holding a sorted set (written by a version before sub-windows) is folded
           into sub-windows once, by the first claim that reads it.
  fixed:   a hash, field the window index floor(slot / per), value the units charged
  concurrency: a sorted set of leases, score the expiry, member the lease id
ARGV[11 + 5n] holds   one character a limit, '1' if limit i is held full after a loss (below),
                       '0' if not (a limit known only from the provider's answers, which states
                       again what remains; ProviderLimits.holdsAfterLoss); absent: all '1'
KEYS[n + 2] the marker of the provider's cluster slot (SlotMarkers: sluice:v1:{~tag}:marker, a
           tag of the same slot). Lost data: the windows and leases of a provider are as
           losable as the leak (a FLUSHALL, a restart without persistence, a failover to a replica
           that had not caught up), and an empty window would grant its whole amount again beside
           the calls already made. A missing marker means Redis lost the slot's data; the script
           stamps it with now, the time of the loss (a marker "0" means nothing was lost). After
           a loss at `lost`, the lost keys may have held every limit's whole amount at slots up to
           lost + lookahead (the furthest a slot is ever granted), so until that has left them a
           limit that holds nothing starts as if it held its amount there: a sliding window
           holds `amount` at lost + lookahead, a fixed window every window from the current one
           to the one lost + lookahead + margin is charged to is full, and concurrency holds
           `amount` leases until lost + lookahead + lease_us. A limit that holds something was
           written after the loss, which no claim does before its window's hold ended.
ARGV[12 + 5n] total_rate the provider's totalRate (ProviderTotal.java), when the claim is joint:
           each slot is also one slot of the provider's total line, KEYS[#KEYS]
           (sluice:v1:{<provider>}:total, a hash of last and ts; the endpoint's keys then carry
           the provider's tag, sluice:v1:{<provider>}/<tenant>:leak). A joint claim without limits
           sends n = 0 and empty limit arguments. Its first slot is also at least one total
           interval (ceil(1e6 / total_rate)) after the total's last (missing: now + lookahead,
           as the leak's), its slots are the larger interval apart, and the total's last
           becomes the claim's last; the reply's interval is that joint spacing.
mode busy (how instances sharing the provider split it by weight; see GlobalShare.java):
KEYS[1]   the provider's busy hash: sluice:v1:{<provider>}:busy, same hash tag as the leak
ARGV[2]   member       the publishing lane (one per instance and provider)
ARGV[3]   ttl_us       how long the entry lives unless published again, microseconds, > 0
ARGV[4]   counts       JSON object: busy tenants per tier on that lane; {} withdraws the member
          Stores {"e": expiry, "t": counts} under the member, drops every expired member, and
          returns {JSON object: the counts summed over the live members}. The hash expires
          2 * ttl after the last publication.
mode throttled:
ARGV[5]   retry_ms     the provider's Retry-After, milliseconds, >= 0
ARGV[6]   started_us   when the throttled call was claimed or started, on this clock
mode release:
KEYS[1]   the provider's concurrency key; ARGV[2] the lease id. Returns 1 if it was held.
mode settle (a slot's event cost less than the slot reserved: give the difference back):
KEYS[i]   the provider's cost limit keys; ARGV[2] slot_us, ARGV[3] reserved, ARGV[4] actual,
ARGV[5 + 3(i-1) ..] limit i: window ('sliding', 'fixed'), per_us, margin_us (a coarse sliding
          one lowers its sub-window's count). Lowers each
          window's record of that slot from reserved to actual, never below: the record stays at
          least what was sent. Returns the number of windows lowered.

Stored fields (all strings of integers, except cf):
  last     the latest slot ever granted, microseconds since the epoch (absent: treated as
           now + lookahead, since a lost key may have granted a slot that far ahead)
  cf       the factor right after the last cut, '%.17g' (absent: 1)
  cut      when the last cut happened, microseconds (absent: never cut)
  pause    no slot before this, microseconds (absent: never paused)
  ts       the latest Redis time seen, microseconds

Returns, mode claim, an array of six:
  [1] granted      integer: slots granted, 0..wanted
  [2] now_us       string: the time of the decision, microseconds (max(ts, TIME))
  [3] first_us     string: the first slot granted (granted = 0: where it would be)
  [4] interval_us  string: spacing of the slots, microseconds
  [5] retry_us     string: when a further claim can succeed (never before now)
  [6] factor       string: the effective rate over the configured one, '%.17g'
Returns, mode throttled, an array of four:
  [1] cut          integer: 1 if this report cut the rate, else 0
  [2] now_us       string: the time of the decision
  [3] pause_us     string: no slot before this
  [4] factor       string: the factor in force after this report, '%.17g'

The key expires an hour after it stops mattering (once the next slot, the pause and the recovery
have all passed): a provider idle for less than that does not pay the missing key's hold-back.
]]

local mode = ARGV[1]
if mode == 'release' then
  return redis.call('ZREM', KEYS[1], ARGV[2])
end
if mode == 'busy' then
  local t = redis.call('TIME')
  local now = tonumber(t[1]) * 1000000 + tonumber(t[2])
  local ttl = tonumber(ARGV[3])
  local mine = cjson.decode(ARGV[4])
  if next(mine) == nil then
    redis.call('HDEL', KEYS[1], ARGV[2])
  else
    -- The expiry as a string: cjson writes numbers with 14 significant digits.
    redis.call('HSET', KEYS[1], ARGV[2],
      cjson.encode({e = string.format('%.0f', now + ttl), t = mine}))
  end
  local sums = {}
  local all = redis.call('HGETALL', KEYS[1])
  for i = 1, #all, 2 do
    local entry = cjson.decode(all[i + 1])
    if tonumber(entry.e) < now then
      redis.call('HDEL', KEYS[1], all[i])
    else
      for tier, n in pairs(entry.t) do
        sums[tier] = (sums[tier] or 0) + n
      end
    end
  end
  if redis.call('EXISTS', KEYS[1]) == 1 then
    redis.call('PEXPIRE', KEYS[1], math.ceil(2 * ttl / 1000))
  end
  return {cjson.encode(sums)}
end
local SUB_WINDOWS = 60
local LONGEST_LOGGED_US = 60000000

-- A long sliding window is kept as sub-window counters (WindowLedger.isCoarse).
local function is_coarse(window, per)
  return window == 'sliding' and per > LONGEST_LOGGED_US
end

local function sub_window_us(per, margin)
  return math.floor((per + margin + SUB_WINDOWS - 1) / SUB_WINDOWS)
end

-- A coarse window's key written as a sorted set (before sub-windows) becomes counters, once.
local function fold_log(key, g)
  if redis.call('TYPE', key)['ok'] ~= 'zset' then
    return
  end
  local members = redis.call('ZRANGE', key, 0, -1, 'WITHSCORES')
  local ttl = redis.call('PTTL', key)
  local counts = {}
  for j = 1, #members, 2 do
    local w = tonumber(string.match(members[j], ':(%d+)$')) or 1
    local k = math.floor(tonumber(members[j + 1]) / g)
    counts[k] = (counts[k] or 0) + w
  end
  redis.call('DEL', key)
  for k, n in pairs(counts) do
    redis.call('HINCRBY', key, string.format('%.0f', k), n)
  end
  if ttl > 0 and next(counts) ~= nil then
    redis.call('PEXPIRE', key, ttl)
  end
end

if mode == 'settle' then
  local slot = tonumber(ARGV[2])
  local reserved = tonumber(ARGV[3])
  local actual = tonumber(ARGV[4])
  local lowered = 0
  if actual >= reserved then
    return 0
  end
  for i = 1, #KEYS do
    local b = 4 + (i - 1) * 3
    local window = ARGV[b + 1]
    local per = tonumber(ARGV[b + 2])
    local margin = tonumber(ARGV[b + 3])
    local s = string.format('%.0f', slot)
    if is_coarse(window, per) then
      local g = sub_window_us(per, margin)
      fold_log(KEYS[i], g)
      local field = string.format('%.0f', math.floor(slot / g))
      local used = tonumber(redis.call('HGET', KEYS[i], field))
      if used ~= nil and used >= reserved then
        redis.call('HINCRBY', KEYS[i], field, actual - reserved)
        lowered = lowered + 1
      end
    elseif window == 'sliding' then
      if redis.call('ZREM', KEYS[i], s .. ':' .. string.format('%.0f', reserved)) == 1 then
        redis.call('ZADD', KEYS[i], s, s .. ':' .. string.format('%.0f', actual))
        lowered = lowered + 1
      end
    else
      local k1 = math.floor(slot / per)
      local k2 = math.floor((slot + margin) / per)
      for _, k in ipairs(k2 ~= k1 and {k1, k2} or {k1}) do
        local field = string.format('%.0f', k)
        local used = tonumber(redis.call('HGET', KEYS[i], field))
        if used ~= nil and used >= reserved then
          redis.call('HINCRBY', KEYS[i], field, actual - reserved)
          lowered = lowered + 1
        end
      end
    end
  end
  return lowered
end
local rate = tonumber(ARGV[2])
local min_factor = tonumber(ARGV[3])
local recovery = tonumber(ARGV[4])

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])

local stored = redis.call('HMGET', KEYS[1], 'last', 'cf', 'cut', 'pause', 'ts')
local last = tonumber(stored[1])
local cf = tonumber(stored[2]) or 1
local cut = tonumber(stored[3])
local pause = tonumber(stored[4])
local ts = tonumber(stored[5])
if ts ~= nil and ts > now then
  now = ts
end

local function factor_at(at)
  if cut == nil then
    return 1
  end
  return math.min(1, cf + (at - cut) / recovery * (1 - cf))
end

local function interval_of(factor)
  return math.ceil(1000000 / (rate * factor))
end

local function us(n)
  return string.format('%.0f', n)
end

-- The provider's total line (ProviderTotal.java), when given: its rate after the limits'
-- arguments, its key the last. Only its last slot and its clock are kept.
local total_rate = nil
local total_last = nil
local total_interval = 0
if mode == 'claim' then
  total_rate = tonumber(ARGV[12 + 5 * (tonumber(ARGV[7]) or 0)])
end
if total_rate ~= nil then
  local held = redis.call('HMGET', KEYS[#KEYS], 'last', 'ts')
  total_last = tonumber(held[1])
  local total_ts = tonumber(held[2])
  if total_ts ~= nil and total_ts > now then
    now = total_ts
  end
  total_interval = math.ceil(1000000 / (total_rate * 1))
end

-- A joint claim's first slot is one total interval after the total's last too, and its slots
-- are the larger of the two intervals apart (LeakMath.claim with a total).
local function joint(first, interval, lookahead)
  if total_rate == nil then
    return first, interval
  end
  if total_last == nil then
    total_last = now + lookahead
  end
  if total_last + total_interval > first then
    first = total_last + total_interval
  end
  return first, math.max(interval, total_interval)
end

local reply
local factor = factor_at(now)
local n_limits = tonumber(ARGV[7]) or 0
if mode == 'claim' and n_limits == 0 then
  local wanted = tonumber(ARGV[5])
  local lookahead = tonumber(ARGV[6])
  local interval = interval_of(factor)
  if last == nil then
    last = now + lookahead
  end
  local first = now
  if last + interval > first then
    first = last + interval
  end
  if pause ~= nil and pause > first then
    first = pause
  end
  first, interval = joint(first, interval, lookahead)
  local horizon = now + lookahead
  local granted = 0
  if first <= horizon then
    granted = math.min(wanted, 1 + math.floor((horizon - first) / interval))
    last = first + (granted - 1) * interval
    total_last = last
  end
  local next_free = first
  if granted > 0 then
    next_free = last + interval
  end
  local retry = math.max(now, next_free - lookahead)
  reply = {granted, us(now), us(first), us(interval), us(retry), string.format('%.17g', factor)}
elseif mode == 'claim' then
  -- Every limit at once (LimitMath.java). Nothing is written until every decision is made, and
  -- only granted slots are written: a refused slot consumes nothing in any limit.
  local wanted = tonumber(ARGV[5])
  local lookahead = tonumber(ARGV[6])
  local slot_cost = tonumber(ARGV[8])
  local lease_prefix = ARGV[9]
  local lease_us = tonumber(ARGV[10])
  local interval = interval_of(factor)
  if last == nil then
    last = now + lookahead
  end
  local first = math.max(now, last + interval)
  if pause ~= nil and pause > first then
    first = pause
  end
  first, interval = joint(first, interval, lookahead)
  local horizon = now + lookahead
  local marker = KEYS[n_limits + 2]
  local lost = tonumber(redis.call('GET', marker))
  if lost == nil then
    lost = now
    redis.call('SET', marker, us(now))
  end
  -- After a loss, the latest instant a lost slot can have been granted at (0: nothing lost).
  local lost_slot = 0
  if lost > 0 then
    lost_slot = lost + lookahead
  end
  local windows = {}
  local conc = nil
  local holds = ARGV[11 + 5 * n_limits] or ''
  for i = 1, n_limits do
    local b = 10 + (i - 1) * 5
    -- This limit's lost slot: 0 when it is not held after a loss.
    local l_lost = lost_slot
    if string.sub(holds, i, i) == '0' then
      l_lost = 0
    end
    local l = {key = KEYS[1 + i], kind = ARGV[b + 1], amount = tonumber(ARGV[b + 2]),
      per = tonumber(ARGV[b + 3]), window = ARGV[b + 4], margin = tonumber(ARGV[b + 5]), new = {}}
    if l.kind == 'concurrency' then
      redis.call('ZREMRANGEBYSCORE', l.key, '-inf', us(now))
      l.live = redis.call('ZCARD', l.key)
      local oldest = redis.call('ZRANGE', l.key, 0, 0, 'WITHSCORES')
      l.earliest = tonumber(oldest[2])
      if lost_slot > 0 and l.live == 0 and now < lost_slot + lease_us then
        l.live = l.amount
        l.earliest = lost_slot + lease_us
      end
      conc = l
    else
      l.weight = 1
      if l.kind == 'cost' then
        l.weight = slot_cost
      end
      if is_coarse(l.window, l.per) then
        l.coarse = true
        l.span = l.per + l.margin
        l.g = sub_window_us(l.per, l.margin)
        fold_log(l.key, l.g)
        l.used = {}
        local oldest = math.floor((now - l.span) / l.g)
        local fields = redis.call('HGETALL', l.key)
        for j = 1, #fields, 2 do
          local k = tonumber(fields[j])
          if k < oldest then
            redis.call('HDEL', l.key, fields[j])
          else
            l.used[k] = tonumber(fields[j + 1])
          end
        end
        if l_lost > 0 and next(l.used) == nil and now - l.span < l_lost then
          l.used[math.floor(l_lost / l.g)] = l.amount
        end
      elseif l.window == 'sliding' then
        l.span = l.per + l.margin
        redis.call('ZREMRANGEBYSCORE', l.key, '-inf', us(now - l.span))
        l.log = {}
        local members = redis.call('ZRANGE', l.key, 0, -1, 'WITHSCORES')
        for j = 1, #members, 2 do
          local w = tonumber(string.match(members[j], ':(%d+)$'))
          table.insert(l.log, {tonumber(members[j + 1]), w})
        end
        if l_lost > 0 and #l.log == 0 and now - l.span < l_lost then
          table.insert(l.log, {l_lost, l.amount})
        end
      else
        l.used = {}
        local current = math.floor(now / l.per)
        local fields = redis.call('HGETALL', l.key)
        for j = 1, #fields, 2 do
          local k = tonumber(fields[j])
          if k < current then
            redis.call('HDEL', l.key, fields[j])
          else
            l.used[k] = tonumber(fields[j + 1])
          end
        end
        if l_lost > 0 and next(l.used) == nil then
          for k = current, math.floor((l_lost + l.margin) / l.per) do
            l.used[k] = l.amount
          end
        end
      end
      table.insert(windows, l)
    end
  end

  local function earliest(l, slot)
    if l.weight > l.amount then
      return math.huge
    end
    if l.coarse then
      -- Every sub-window reaching into (slot - span, slot] counts whole (WindowLedger.earliest).
      local lo = math.floor((slot - l.span) / l.g)
      local ks = {}
      local held = 0
      for k, n in pairs(l.used) do
        if k >= lo then
          table.insert(ks, k)
          held = held + n
        end
      end
      local excess = held + l.weight - l.amount
      if excess <= 0 then
        return slot
      end
      table.sort(ks)
      for _, k in ipairs(ks) do
        excess = excess - l.used[k]
        if excess <= 0 then
          return (k + 1) * l.g + l.span
        end
      end
    end
    if l.window == 'sliding' then
      local held = 0
      for _, e in ipairs(l.log) do
        if e[1] > slot - l.span then
          held = held + e[2]
        end
      end
      local excess = held + l.weight - l.amount
      if excess <= 0 then
        return slot
      end
      for _, e in ipairs(l.log) do
        if e[1] > slot - l.span then
          excess = excess - e[2]
          if excess <= 0 then
            return e[1] + l.span
          end
        end
      end
    end
    local k1 = math.floor(slot / l.per)
    local k2 = math.floor((slot + l.margin) / l.per)
    if (l.used[k1] or 0) + l.weight <= l.amount and (l.used[k2] or 0) + l.weight <= l.amount then
      return slot
    end
    return (k1 + 1) * l.per
  end

  local function latest_earliest(slot)
    local latest = slot
    for _, l in ipairs(windows) do
      if latest == math.huge then
        return latest
      end
      latest = math.max(latest, earliest(l, slot))
    end
    return latest
  end

  local concurrency_retry = nil
  if conc ~= nil then
    local free = conc.amount - conc.live
    if free < wanted then
      concurrency_retry = math.min(conc.earliest or math.huge, now + 50000)
    end
    wanted = math.max(0, math.min(wanted, free))
  end

  local slot = first
  for pass = 1, 16 do
    local moved = latest_earliest(slot)
    if moved == slot then
      break
    end
    slot = moved
  end
  first = slot
  local granted = 0
  local next_free = first
  while granted < wanted and slot <= horizon do
    local fits = latest_earliest(slot)
    if fits ~= slot then
      next_free = fits
      break
    end
    for _, l in ipairs(windows) do
      if l.coarse then
        local k = math.floor(slot / l.g)
        l.used[k] = (l.used[k] or 0) + l.weight
      elseif l.window == 'sliding' then
        table.insert(l.log, {slot, l.weight})
      else
        local k1 = math.floor(slot / l.per)
        local k2 = math.floor((slot + l.margin) / l.per)
        l.used[k1] = (l.used[k1] or 0) + l.weight
        if k2 ~= k1 then
          l.used[k2] = (l.used[k2] or 0) + l.weight
        end
      end
      table.insert(l.new, slot)
    end
    if conc ~= nil then
      table.insert(conc.new, slot)
    end
    last = slot
    total_last = slot
    granted = granted + 1
    slot = slot + interval
    next_free = slot
  end
  local retry
  if next_free == math.huge then
    next_free = now + 1000000
    retry = next_free
  elseif wanted == 0 then
    retry = now
  else
    retry = math.max(now, next_free - lookahead)
  end
  if concurrency_retry ~= nil then
    if granted > 0 then
      retry = math.min(retry, concurrency_retry)
    else
      retry = math.max(retry, concurrency_retry)
    end
  end

  -- The writes: only what was granted, each key kept an hour past the last instant it matters.
  for _, l in ipairs(windows) do
    if #l.new > 0 then
      local matters_until
      if l.coarse then
        for _, t in ipairs(l.new) do
          redis.call('HINCRBY', l.key, us(math.floor(t / l.g)), l.weight)
        end
        matters_until = (math.floor(l.new[#l.new] / l.g) + 1) * l.g + l.span
      elseif l.window == 'sliding' then
        for _, t in ipairs(l.new) do
          redis.call('ZADD', l.key, us(t), us(t) .. ':' .. us(l.weight))
        end
        matters_until = l.new[#l.new] + l.span
      else
        for _, t in ipairs(l.new) do
          local k1 = math.floor(t / l.per)
          local k2 = math.floor((t + l.margin) / l.per)
          redis.call('HINCRBY', l.key, us(k1), l.weight)
          if k2 ~= k1 then
            redis.call('HINCRBY', l.key, us(k2), l.weight)
          end
        end
        matters_until = (math.floor((l.new[#l.new] + l.margin) / l.per) + 1) * l.per
      end
      redis.call('PEXPIRE', l.key, math.ceil((matters_until - now) / 1000) + 3600000)
    end
  end
  if conc ~= nil and #conc.new > 0 then
    for i, t in ipairs(conc.new) do
      redis.call('ZADD', conc.key, us(t + lease_us), lease_prefix .. ':' .. (i - 1))
    end
    redis.call('PEXPIRE', conc.key, math.ceil((conc.new[#conc.new] + lease_us - now) / 1000) + 3600000)
  end
  local reported = next_free
  if granted > 0 then
    reported = first
  end
  reply = {granted, us(now), us(reported), us(interval), us(retry), string.format('%.17g', factor)}
elseif mode == 'throttled' then
  local retry_ms = tonumber(ARGV[5])
  local started = tonumber(ARGV[6])
  local did = 0
  if pause ~= nil and started >= pause and now - pause < recovery then
    cf = math.max(min_factor, factor * 0.5)
    cut = now
    factor = cf
    did = 1
  end
  local resume = now + retry_ms * 1000
  if pause == nil or resume > pause then
    pause = resume
  end
  reply = {did, us(now), us(pause), string.format('%.17g', factor)}
else
  return redis.error_reply('unknown mode ' .. tostring(mode))
end

local fields = {'ts', us(now)}
if last ~= nil then
  table.insert(fields, 'last')
  table.insert(fields, us(last))
end
if cut ~= nil then
  table.insert(fields, 'cf')
  table.insert(fields, string.format('%.17g', cf))
  table.insert(fields, 'cut')
  table.insert(fields, us(cut))
end
if pause ~= nil then
  table.insert(fields, 'pause')
  table.insert(fields, us(pause))
end
redis.call('HSET', KEYS[1], unpack(fields))

-- The factor only climbs until the next cut (which rewrites the expiry), so the interval at now
-- is the longest that can separate `last` from the next slot.
local matters_until = now
if last ~= nil then
  matters_until = math.max(matters_until, last + interval_of(factor_at(now)))
end
if pause ~= nil then
  matters_until = math.max(matters_until, pause)
end
if cut ~= nil then
  matters_until = math.max(matters_until, cut + recovery)
end
redis.call('PEXPIRE', KEYS[1], math.ceil((matters_until - now) / 1000) + 3600000)
if total_rate ~= nil then
  redis.call('HSET', KEYS[#KEYS], 'last', us(total_last), 'ts', us(now))
  redis.call('PEXPIRE', KEYS[#KEYS],
    math.ceil((math.max(now, total_last + total_interval) - now) / 1000) + 3600000)
end

return reply
