#!lua flags=allow-oom
-- A running job's lease renewed alone, for a run whose writes Redis refuses at its memory
-- limit: it keeps the job (no sweep takes it over as lost) and writes again once memory is
-- back. It runs under OOM (allow-oom) and grows nothing: an existing field and member change.
-- KEYS: job hash, leases zset.  ARGV: the run's guard (guard.lua), lease_until, job_id.
-- Returns 1 when renewed, 0 when this run no longer holds the job.
local s = redis.call('HMGET', KEYS[1], 'state', 'claims', 'run')
if s[1] ~= 'running' or not holds(s[2], s[3], ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'lease', ARGV[2])
redis.call('ZADD', KEYS[2], 'XX', ARGV[2], ARGV[3])
return 1
