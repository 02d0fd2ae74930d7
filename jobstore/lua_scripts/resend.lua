-- KEYS: queued zset, job hash, the broker's solve list, the broker's enumerate list.
-- ARGV: job_id, now, cutoff (score before which the job counts as waiting long), ttl.
-- Returns the job's mode when its message must be sent again: the job is still queued a while
-- after its message was sent, yet its queue is empty, so the message is nowhere to be taken
-- from (lost with a connection, or parked unacknowledged until the visibility timeout).
-- Ids no longer queued leave the set. Winning moves the score to now: one re-send per cutoff.
local score = redis.call('ZSCORE', KEYS[1], ARGV[1])
if not score or tonumber(score) > tonumber(ARGV[3]) then return '' end
local s = redis.call('HMGET', KEYS[2], 'state', 'mode')
if s[1] ~= 'queued' then
  redis.call('ZREM', KEYS[1], ARGV[1])
  return ''
end
local queue = KEYS[3]
if s[2] == 'enumerate' then queue = KEYS[4] end
if redis.call('LLEN', queue) > 0 then return '' end
redis.call('ZADD', KEYS[1], ARGV[2], ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
return s[2]
