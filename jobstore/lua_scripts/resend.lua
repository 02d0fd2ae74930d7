-- A job still queued a while after its message was sent, with every lane of its queue empty:
-- where did its message go? Parked in kombu's unacked hash (a worker popped it, then lost its
-- connection), or sent before Redis last started (a pop persisted while its reply was lost in
-- the restart): it is sent again now rather than after the visibility timeout. Otherwise it is
-- nowhere, on two looks a sweep apart: an operator purged the queue (`celery purge`), so the job
-- ends canceled "purged" instead of being silently sent again. (Two looks: a worker's pop and
-- its write to the unacked hash are not one step.)
-- Ids no longer queued leave the set. Winning moves the score to now: one re-send per cutoff.
-- KEYS: queued zset, job hash, the job's lane list, kombu's unacked hash, leases zset, stats
--       hash, then every lane list of its queue.
-- ARGV: job_id, now, cutoff (score before which the job counts as waiting long), ttl, message,
--       the finished channel, when Redis last started (epoch seconds).
-- Returns 1 when the message was sent again, 2 when the job ended purged, 3 when the job is a
-- shard whose message was purged (the caller cancels its whole job), else 0.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) > tonumber(ARGV[3]) then return 0 end
local s = redis.call('HMGET', KEYS[2], 'state', 'message', 'missing_since', 'parent',
  'queued_at')
if s[1] ~= 'queued' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
for i = 7, #KEYS do
  if redis.call('LLEN', KEYS[i]) > 0 then
    redis.call('HDEL', KEYS[2], 'missing_since')
    return 0
  end
end
local parked = false
if s[2] then
  local ok, message = pcall(cjson.decode, s[2])
  local tag = ok and message.properties and message.properties.delivery_tag
  parked = tag and redis.call('HEXISTS', KEYS[4], tag) == 1
end
local before_restart = tonumber(s[5] or '0') < tonumber(ARGV[7])
if parked or before_restart or not s[2] then
  redis.call('HDEL', KEYS[2], 'missing_since')
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  redis.call('LPUSH', KEYS[3], ARGV[5])
  redis.call('HSET', KEYS[2], 'message', ARGV[5], 'queued_at', ARGV[2])
  return 1
end
if not s[3] then
  redis.call('HSET', KEYS[2], 'missing_since', ARGV[2])
  return 0
end
if s[4] and s[4] ~= '' then return 3 end
redis.call('HSET', KEYS[2], 'state', 'canceled', 'cancel', ARGV[2], 'finished', ARGV[2],
  'eta', '', 'error', 'purged')
redis.call('ZREM', KEYS[1], ARGV[1])
redis.call('ZREM', KEYS[5], ARGV[1])
ended(KEYS[6], KEYS[2], 'canceled', ARGV[2])
redis.call('PUBLISH', ARGV[6], ARGV[1])
return 2
