-- An operator's re-queue of a failed job (jobstore/admin.py): the job starts over under its
-- own id, on its own lane, with a fresh count of attempts; its message goes out in the same
-- step. Its old solutions and grid stay for the claim to cut away (the claim also gives the
-- client's storage budget back); the records of its old shards, if any, go at once.
-- KEYS: job hash, queued zset, lane list, dedup string, then old shard keys (deleted).
-- ARGV: now, job_id, message, ttl, the `shards` field the caller read ('' when none).
-- Returns {'requeued', mode} | {'gone', ''} | {'not-failed', state} | {'changed', ''} (the
-- shard count changed under us: read again).
local s = redis.call('HMGET', KEYS[1], 'state', 'mode', 'shards')
if not s[1] then return {'gone', ''} end
if s[1] ~= 'failed' then return {'not-failed', s[1]} end
if (s[3] or '') ~= ARGV[5] then return {'changed', ''} end
for i = 5, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('HDEL', KEYS[1], 'shards', 'deadline', 'run_started', 'batch', 'deleted')
-- `claims` is kept: it only grows, so a write of any earlier run stays refused.
redis.call('HSET', KEYS[1], 'state', 'queued', 'attempt', '0', 'progress', '0', 'nodes', '0',
  'found', '0', 'truncated', '0', 'truncated_reason', '', 'ran', '0', 'cp', '',
  'cp_stored', '', 'eta', '', 'error', '', 'solution', '', 'started', '', 'finished', '',
  'cancel', '', 'lease', '', 'holder', '', 'limit_at', '', 'message', ARGV[3],
  'queued_at', ARGV[1], 'requeued', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'requeues', 1)
redis.call('EXPIRE', KEYS[1], ARGV[4])
-- Identical submissions find this job again, unless a newer one has taken the key meanwhile.
if KEYS[4] ~= KEYS[1] then redis.call('SET', KEYS[4], KEYS[1], 'NX', 'EX', ARGV[4]) end
redis.call('ZADD', KEYS[2], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], ARGV[4])
redis.call('LPUSH', KEYS[3], ARGV[3])
return {'requeued', s[2]}
