--[[
Sluice: the calls a dispatcher got a 2xx for on one partition of sluice.ready, beyond its
committed offset, so that the partition's next owner does not call them again (DeliveredLog.java).

A sorted set per (dispatcher group, partition, cluster id, topic id): score = the record's
offset, member = "offset:status:attempts". Offsets below the committed one can never be read
again: each write drops them. At most max_entries are kept (the highest offsets), whatever holds
the commit back. The key expires when nothing was delivered on the partition for the TTL.

Why here and not in the commit's metadata alone: a commit needs the group coordinator, and the
outcome that settles a call needs the broker. While the broker is away (a restart) neither
happens, yet calls go on; when it comes back the group forgets its members and another instance
takes the partition from the last commit that went through. Redis still holds what was delivered.

KEYS[1]  sluice:v2:{<group>:<topic>-<partition>}:delivered:<cluster id>:<topic id> (hash-tagged)
mode add:    ARGV[1] "add", ARGV[2] ttl_ms, ARGV[3] keep_from (offsets below are dropped; -1 none),
             ARGV[4] max_entries, ARGV[5..] members "offset:status:attempts"
mode since:  ARGV[1] "since", ARGV[2] from, ARGV[3] to (optional, inclusive): every member
             with from <= offset <= to (a new owner reading again what it waits for)
]]
local key = KEYS[1]
if ARGV[1] == 'add' then
  local keep_from = tonumber(ARGV[3])
  if keep_from > 0 then
    redis.call('ZREMRANGEBYSCORE', key, '-inf', '(' .. ARGV[3])
  end
  for i = 5, #ARGV do
    local offset = string.match(ARGV[i], '^(%d+):')
    if offset and tonumber(offset) >= keep_from then
      redis.call('ZADD', key, offset, ARGV[i])
    end
  end
  local max_entries = tonumber(ARGV[4])
  if redis.call('ZCARD', key) > max_entries then
    redis.call('ZREMRANGEBYRANK', key, 0, -(max_entries + 1))
  end
  redis.call('PEXPIRE', key, ARGV[2])
  return {}
end
return redis.call('ZRANGEBYSCORE', key, ARGV[2], ARGV[3] or '+inf')
