--[[
Sluice: one tenant's weighted token bucket toward one provider, decided atomically.

Why one script: refill, charge and reservation must read and write the bucket in one step, or two
gate instances could both see the same tokens. Redis runs a script alone, so the script is the lock.

Why Redis TIME: every gate instance asks the same clock, so clock skew between gate machines can
never change a decision. A clock that steps backwards (a failover to a replica whose clock is
behind) never refills backwards: the stored timestamp only moves forward.

The bucket and its reservations (the model the Java mirror TokenBucketMath follows line by line):
  level   tokens in the bucket, at most capacity. It goes NEGATIVE when units are reserved ahead:
          -5 means the next 5 units of refill already belong to events waiting in the delay ladder.
  Unit j (1-based) of a charge made when the level was L is due at
          now + max(0, (j - L) / refill)   seconds.
  The reservation horizon bounds the debt: a unit may be charged only if it is due within horizon,
  so level never goes below -(refill * horizon) through ordinary charges. An event whose units do
  not fit is not charged; it gets a ticket instead: a place in the bucket's waiting line ("line",
  the time at which the line's last place is served). It comes back at its ticket time as a ticket
  holder and is charged then without the horizon check: it already waited its turn, so an event
  deferred unpaid is gated at most twice. Units a ticket holder takes may sit past the horizon by
  at most the lateness of its return; that only delays later events (stricter, never looser).

KEYS[1]   the bucket hash, e.g. sluice:v1:{payments-api:acme}:tb (hash-tagged: one cluster slot)
ARGV[1]   capacity     bucket size in cost units, > 0
ARGV[2]   refill       cost units per second, > 0
ARGV[3]   want         units the caller would like, >= need; units beyond need form a lease that
                       the caller hands out locally (see Lease.java for when each may be used)
ARGV[4]   need         units the current event must have (its cost), >= 1
ARGV[5]   horizon_us   reservation horizon, microseconds, >= 0
ARGV[6]   holder       "1" when the event holds a ticket, else "0"

Stored fields (all strings):
  tokens   the level after the last update (may be negative)
  ts       Redis time of the last update, microseconds since the epoch
  line     end of the waiting line, microseconds since the epoch (absent: no line)

Returns an array of four:
  [1] granted      integer: units charged (0: none, see [4])
  [2] level        string: the level before this charge, after refill (a decimal number)
  [3] now_us       string: the Redis time of the decision, microseconds
  [4] ticket_us    string: when granted = 0, how long from now until the event's turn; else "0"

The key expires once the bucket would be full again and its line has passed (plus a second): an
expired key reads as a full bucket, which is exactly what it would hold by then.
]]

local capacity = tonumber(ARGV[1])
local refill = tonumber(ARGV[2])
local want = tonumber(ARGV[3])
local need = tonumber(ARGV[4])
local horizon = tonumber(ARGV[5])
local holder = ARGV[6] == '1'

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])

local stored = redis.call('HMGET', KEYS[1], 'tokens', 'ts', 'line')
local level = tonumber(stored[1])
local ts = tonumber(stored[2])
local line = tonumber(stored[3]) or 0
if level == nil or ts == nil then
  level = capacity
  ts = now
end

-- Refill, never backwards: if Redis time is behind the stored time, decide as of the stored time.
if now > ts then
  level = math.min(capacity, level + (now - ts) * refill / 1000000)
  ts = now
end
now = ts

local before = level
local us_per_unit = 1000000 / refill

-- The most units whose due time is within the horizon: j <= level + refill * horizon.
-- The epsilon absorbs the rounding of the division so an exact fit is a fit.
local fit = math.floor(level + horizon * refill / 1000000 + 1e-9)

local granted = 0
local ticket = 0
if want <= fit then
  granted = want
elseif need <= fit then
  granted = fit
elseif holder then
  granted = need
else
  -- Not charged. The horizon has room for `need` units at `open`; the line serves in order.
  local open = now + (need - level) * us_per_unit - horizon
  local turn = math.max(open, line)
  line = turn + need * us_per_unit
  ticket = math.ceil(turn - now)
end
level = level - granted

local fields = {'tokens', string.format('%.17g', level), 'ts', string.format('%.0f', ts)}
if line > now then
  table.insert(fields, 'line')
  table.insert(fields, string.format('%.0f', line))
end
redis.call('HSET', KEYS[1], unpack(fields))

local until_full = (capacity - level) * us_per_unit
local until_line = line - now
local ttl_ms = math.ceil(math.max(until_full, until_line, 0) / 1000) + 1000
redis.call('PEXPIRE', KEYS[1], ttl_ms)

return {granted, string.format('%.17g', before), string.format('%.0f', now), string.format('%.0f', ticket)}
