-- Hands a running job back to its queue without ending it and without spending an attempt:
-- its worker is stopping (the message goes to the front of the job's lane, to run next), or it
-- yields its worker to jobs waiting (to the back of the TURNS lane: jobs take turns). The run
-- wrote its checkpoint just before; the next claim resumes from it. Record and message change
-- together, so the job is never left without a message.
-- KEYS: job hash, leases zset, queued zset, lane list, stats hash, the lane's waiting zset.
-- ARGV: claims, now, message, front ("1": next to run), lane, job_id, reason (stopped |
--       yielded), ttl.
-- Returns 1 when handed back, 0 when the run no longer holds the job.
local s = redis.call('HMGET', KEYS[1], 'state', 'claims')
if s[1] ~= 'running' or s[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'state', 'queued', 'lease', '', 'holder', '', 'run_started', '',
  'eta', '', 'lane', ARGV[5], 'queued_at', ARGV[2], 'stop', '', 'message', ARGV[3])
redis.call('ZREM', KEYS[2], ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[6])
redis.call('EXPIRE', KEYS[3], ARGV[8])
if ARGV[4] == '1' then
  redis.call('RPUSH', KEYS[4], ARGV[3])
else
  redis.call('LPUSH', KEYS[4], ARGV[3])
end
redis.call('HINCRBY', KEYS[5], 'redeliveries:' .. ARGV[7], 1)
redis.call('ZADD', KEYS[6], ARGV[2], KEYS[1])
redis.call('EXPIRE', KEYS[6], ARGV[8])
return 1
