-- KEYS: job hash, leases zset.  ARGV: now, new_lease, job_id, dead_holder.
-- Returns the job's mode when this caller won the right to re-queue a running job whose worker
-- died, else ''. With dead_holder '' that means its lease expired; with a holder the sweeper
-- saw dead (a process on its own machine that no longer exists), that this holder still holds
-- a live lease: the lease is then ended at once, so the next claim runs without waiting and
-- later sweeps do not re-queue it again. Winning pushes the sweep's score forward, so of
-- several workers sweeping at once only one re-queues it.
local score = redis.call('ZSCORE', KEYS[2], ARGV[3])
if not score then return '' end
local s = redis.call('HMGET', KEYS[1], 'state', 'lease', 'mode', 'holder')
if s[1] ~= 'running' then
  redis.call('ZREM', KEYS[2], ARGV[3])
  return ''
end
local now, lease = tonumber(ARGV[1]), tonumber(s[2] or '0')
if ARGV[4] ~= '' then
  if s[4] ~= ARGV[4] or lease <= now then return '' end
  redis.call('HSET', KEYS[1], 'lease', ARGV[1])
else
  if tonumber(score) > now then return '' end
  if lease > now then
    redis.call('ZADD', KEYS[2], s[2], ARGV[3])
    return ''
  end
end
redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3])
return s[3]
