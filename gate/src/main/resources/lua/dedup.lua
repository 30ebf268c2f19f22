-- dedup.lua: remembers the first record that brought an event id, for a window.
--
-- KEYS[1]  the id's key: sluice:v1:{<provider>:<tenant>}:seen:<id> (BucketKey.seenKey)
-- ARGV[1]  this record's mark (DedupMark: "v1 <source> <acceptedAtMillis> <status>")
-- ARGV[2]  the window in milliseconds: how long the first mark is kept
--
-- Returns { mark }: the mark of the first record that brought the id within the window; this
-- record's own (just stored, with the window as its expiry) when there was none. The caller
-- compares sources: the same source is the same record read again (the gate crashed or its task
-- moved before its transaction committed), so it is not a duplicate of itself.
local first = redis.call('GET', KEYS[1])
if first then
  return { first }
end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return { ARGV[1] }
