#!lua flags=allow-oom
-- A worker's heartbeat in the registry of each queue it consumes (jobstore/workers.py), or a
-- stopping worker's withdrawal (its last beat set to read as silent, never added). It runs
-- under OOM (allow-oom): a worker waiting out a full Redis is alive, and must not look gone
-- (not ready); a beat grows nothing but one small member.
-- KEYS: the heartbeat zsets of its queues.
-- ARGV: name, score, drop_before (members last heard before it leave), keep (the sets' TTL,
--       seconds), withdraw ('1': only an existing member's score changes).
-- Returns the number of sets written.
for i = 1, #KEYS do
  if ARGV[5] == '1' then
    redis.call('ZADD', KEYS[i], 'XX', ARGV[2], ARGV[1])
  else
    redis.call('ZADD', KEYS[i], ARGV[2], ARGV[1])
    redis.call('ZREMRANGEBYSCORE', KEYS[i], '-inf', ARGV[3])
    redis.call('EXPIRE', KEYS[i], ARGV[4])
  end
end
return #KEYS
