-- Sends a job's message again when the job is still queued a while after its message was
-- sent, yet every lane of its queue is empty, so the message is nowhere to be taken from
-- (lost with a connection, or parked unacknowledged until the visibility timeout).
-- Ids no longer queued leave the set. Winning moves the score to now: one re-send per cutoff.
-- KEYS: queued zset, job hash, the job's lane list, then every lane list of its queue.
-- ARGV: job_id, now, cutoff (score before which the job counts as waiting long), ttl, message.
-- Returns 1 when the message was sent again, else 0.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) > tonumber(ARGV[3]) then return 0 end
if redis.call('HGET', KEYS[2], 'state') ~= 'queued' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return 0
end
for i = 4, #KEYS do
  if redis.call('LLEN', KEYS[i]) > 0 then return 0 end
end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('LPUSH', KEYS[3], ARGV[5])
redis.call('HSET', KEYS[2], 'message', ARGV[5], 'queued_at', ARGV[2])
return 1
