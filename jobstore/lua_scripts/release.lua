#!lua flags=allow-oom
-- KEYS: parent hash, leases zset.  ARGV: the run's guard (guard.lua), parent id.
-- The job is split: the parent no longer needs a lease of its own (its shards have theirs).
-- It runs under OOM (allow-oom): it frees a member and grows nothing.
local p = redis.call('HMGET', KEYS[1], 'state', 'claims', 'run')
if p[1] ~= 'running' or not holds(p[2], p[3], ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'lease', '0')
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
