-- A job still queued a while after its message was sent, with every lane of its queue empty:
-- where did its message go? When in doubt it is sent again, never canceled: a needless re-send
-- costs only a duplicate delivery, which claim.lua refuses. Parked in kombu's unacked hash (a
-- worker popped it, then lost its connection), or sent before Redis last started (a pop
-- persisted while its reply was lost in the restart): it is sent again now rather than after
-- the visibility timeout. Deleted by an operator's purge (`celery purge`), which names the
-- delivery tag of every message it deletes in the purged hash (worker/broker.py): the job ends
-- canceled "purged" (a shard's whole job, by the caller). Otherwise it is in no queue and no
-- worker's hands: a worker popped it and was lost before it could park it (its link cut while
-- it waited in its pop, or it died or stopped in between, maybe to start again under the same
-- name), or it was deleted some other way. The first look marks the job missing; once it has
-- been missing for a while (a worker that took it has parked or claimed it by then), the
-- message is sent again.
-- Ids no longer queued leave the set. Winning moves the score to now: one re-send per cutoff.
-- KEYS: queued zset, job hash, the job's lane list, kombu's unacked hash, leases zset, stats
--       hash, the purged hash, then every lane list of its queue.
-- ARGV: job_id, now, cutoff (score before which the job counts as waiting long), ttl, message,
--       the finished channel, when Redis last started (epoch seconds), seconds a message may
--       be missing before it is sent again.
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
for i = 8, #KEYS do
  if redis.call('LLEN', KEYS[i]) > 0 then
    redis.call('HDEL', KEYS[2], 'missing_since')
    return 0
  end
end
local tag = nil
if s[2] then
  local ok, message = pcall(cjson.decode, s[2])
  tag = ok and message.properties and message.properties.delivery_tag
end
local parked = tag and redis.call('HEXISTS', KEYS[4], tag) == 1
local purged = tag and not parked and redis.call('HEXISTS', KEYS[7], tag) == 1
local now = tonumber(ARGV[2])
local before_restart = tonumber(s[5] or '0') < tonumber(ARGV[7])
local missing = s[3] and now - tonumber(s[3]) >= tonumber(ARGV[8])
if purged then
  if s[4] and s[4] ~= '' then return 3 end
  redis.call('HSET', KEYS[2], 'state', 'canceled', 'cancel', ARGV[2], 'finished', ARGV[2],
    'eta', '', 'error', 'purged')
  redis.call('HDEL', KEYS[2], 'missing_since')
  redis.call('ZREM', KEYS[1], ARGV[1])
  redis.call('ZREM', KEYS[5], ARGV[1])
  ended(KEYS[6], KEYS[2], 'canceled', ARGV[2])
  redis.call('PUBLISH', ARGV[6], ARGV[1])
  return 2
end
if parked or before_restart or missing or not s[2] then
  redis.call('HDEL', KEYS[2], 'missing_since')
  redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
  redis.call('EXPIRE', KEYS[1], ARGV[4])
  redis.call('LPUSH', KEYS[3], ARGV[5])
  redis.call('HSET', KEYS[2], 'message', ARGV[5], 'queued_at', ARGV[2])
  return 1
end
if not s[3] then redis.call('HSET', KEYS[2], 'missing_since', ARGV[2]) end
return 0
