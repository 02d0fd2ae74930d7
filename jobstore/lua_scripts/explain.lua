-- A request for a job's explanation (jobstore/explanations.py): the one kept, the one being
-- worked out, or a new one queued for a worker, counted against the client's rates as a job
-- is. A client waits for one explanation at a time: asking for another meanwhile is 'busy'.
-- KEYS: job hash, explanation hash, the client's explaining string, the lane list, the lane's
--       waiting zset, stats hash, n rate window counters.
-- ARGV: now, task message, its task id, client, seconds a pending explanation is kept, n,
--       amount, seconds per rate window...
-- Returns {'gone', ''} (no such job) | {'done', body} | {'failed', error} | {'queued', ''} |
-- {'running', ''} | {'busy', seconds} | {'limited', seconds}.
local job = redis.call('HMGET', KEYS[1], 'state', 'parent')
if not job[1] or (job[2] or '') ~= '' then return {'gone', ''} end
local e = redis.call('HMGET', KEYS[2], 'state', 'body')
if e[1] == 'done' or e[1] == 'failed' then return {e[1], e[2] or ''} end
if e[1] == 'queued' or e[1] == 'running' then return {e[1], ''} end
local other = redis.call('GET', KEYS[3])
if other and other ~= KEYS[2] then
  local state = redis.call('HGET', other, 'state')
  if state == 'queued' or state == 'running' then
    return {'busy', tostring(math.max(1, redis.call('TTL', KEYS[3])))}
  end
end
local n = tonumber(ARGV[6])
local wait = over_rate(7, n, 7)
if wait > 0 then return {'limited', tostring(wait)} end
local pending = tonumber(ARGV[5])
redis.call('HSET', KEYS[2], 'state', 'queued', 'client', ARGV[4], 'asked', ARGV[1],
  'task', ARGV[3])
redis.call('EXPIRE', KEYS[2], pending)
redis.call('SET', KEYS[3], KEYS[2], 'EX', pending)
redis.call('LPUSH', KEYS[4], ARGV[2])
redis.call('ZADD', KEYS[5], ARGV[1], KEYS[2])
redis.call('EXPIRE', KEYS[5], pending)
redis.call('HINCRBY', KEYS[6], 'explained:asked', 1)
return {'queued', ''}
