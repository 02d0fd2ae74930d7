-- A worker's run of an explanation ends (jobstore/explanations.py): worked out (kept for as
-- long as its job), failed (the explainer raised: kept too, so it is not tried again), or
-- given back to the front of its lane for a job that must go first (a new task message), with
-- the run's checkpoint, which the next run resumes from.
-- KEYS: explanation hash, job hash, the client's explaining string, stats hash, the lane
--       list, the lane's waiting zset.
-- ARGV: task id of the run, outcome (done | failed | queued), body, error or checkpoint, now,
--       finished channel, job id, the new message and its task id (queued), ttl when the job
--       is gone, seconds a pending explanation is kept.
-- Returns 1, or 0 when this run no longer holds the explanation.
local e = redis.call('HMGET', KEYS[1], 'state', 'task')
if e[1] ~= 'running' or e[2] ~= ARGV[1] then return 0 end
if ARGV[2] == 'queued' then
  redis.call('HSET', KEYS[1], 'state', 'queued', 'task', ARGV[8], 'holder', '', 'lease', '',
    'cp', ARGV[3])
  redis.call('EXPIRE', KEYS[1], ARGV[10])
  redis.call('RPUSH', KEYS[5], ARGV[7])
  redis.call('ZADD', KEYS[6], ARGV[4], KEYS[1])
  redis.call('EXPIRE', KEYS[6], ARGV[10])
  if redis.call('GET', KEYS[3]) == KEYS[1] then redis.call('EXPIRE', KEYS[3], ARGV[10]) end
  redis.call('HINCRBY', KEYS[4], 'explained:yielded', 1)
  return 1
end
redis.call('HSET', KEYS[1], 'state', ARGV[2], 'body', ARGV[3], 'finished', ARGV[4],
  'holder', '', 'lease', '')
redis.call('HDEL', KEYS[1], 'cp')
local ttl = redis.call('TTL', KEYS[2])
if ttl <= 0 then ttl = tonumber(ARGV[9]) end
redis.call('EXPIRE', KEYS[1], ttl)
if redis.call('GET', KEYS[3]) == KEYS[1] then redis.call('DEL', KEYS[3]) end
redis.call('HINCRBY', KEYS[4], 'explained:' .. ARGV[2], 1)
redis.call('PUBLISH', ARGV[5], ARGV[6] .. '/explain')
return 1
