-- Re-queues a running job whose worker died: its lease expired (dead_holder ''), or its holder
-- is a process the sweeper knows to be dead while its lease still runs (the lease then ends at
-- once, so the next claim runs without waiting). The message goes to the front of the job's
-- lane; the claim then spends an attempt and resumes from the checkpoint. Winning pushes the
-- sweep's score forward, so of several workers sweeping at once only one re-queues it.
-- KEYS: job hash, leases zset, the job's lane list, that lane's waiting zset.
-- ARGV: now, new_lease, job_id, dead_holder, message.
-- Returns 1 when this caller re-queued the job, else 0.
local score = redis.call('ZSCORE', KEYS[2], ARGV[3])
if not score then return 0 end
local s = redis.call('HMGET', KEYS[1], 'state', 'lease', 'holder')
if s[1] ~= 'running' then
  redis.call('ZREM', KEYS[2], ARGV[3])
  return 0
end
local now, lease = tonumber(ARGV[1]), tonumber(s[2] or '0')
if ARGV[4] ~= '' then
  if s[3] ~= ARGV[4] or lease <= now then return 0 end
  redis.call('HSET', KEYS[1], 'lease', ARGV[1])
else
  if tonumber(score) > now then return 0 end
  if lease > now then
    redis.call('ZADD', KEYS[2], s[2], ARGV[3])
    return 0
  end
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
redis.call('RPUSH', KEYS[3], ARGV[5])
redis.call('ZADD', KEYS[4], ARGV[1], KEYS[1])
redis.call('HSET', KEYS[1], 'message', ARGV[5], 'queued_at', ARGV[1])
return 1
