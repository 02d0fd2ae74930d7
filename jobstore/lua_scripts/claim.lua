-- KEYS: job hash, solutions list, grid hash, leases zset.
-- ARGV: now, lease_until, holder, max_attempts, ttl, job_id, force ("1" = ignore a live lease),
--       hard_limit (an attempt running longer than this was killed by it: the job failed),
--       the finished channel (every script that ends a job publishes its id there).
-- Returns {status, attempt, lease, holder, record}; status: run | done | gone | busy | canceled |
-- failed; record is the job hash as a flat field/value list after a 'run' claim (else empty),
-- so the worker needs no second round trip to read it.
local s = redis.call('HMGET', KEYS[1], 'state', 'attempt', 'cancel', 'lease', 'holder',
  'run_started')
if not s[1] then return {'gone', 0, '', ''} end
local state, attempt = s[1], tonumber(s[2] or '0')
if state == 'succeeded' or state == 'failed' or state == 'canceled' then
  return {'done', attempt, '', ''}
end
local now = ARGV[1]
if s[3] and s[3] ~= '' then
  redis.call('HSET', KEYS[1], 'state', 'canceled', 'finished', now, 'eta', '')
  redis.call('ZREM', KEYS[4], ARGV[6])
  redis.call('PUBLISH', ARGV[9], ARGV[6])
  return {'canceled', attempt, '', ''}
end
if state == 'running' and s[6] and s[6] ~= '' and
    tonumber(now) - tonumber(s[6]) >= tonumber(ARGV[8]) then
  redis.call('HSET', KEYS[1], 'state', 'failed', 'finished', now, 'eta', '',
    'error', 'time limit')
  redis.call('ZREM', KEYS[4], ARGV[6])
  redis.call('PUBLISH', ARGV[9], ARGV[6])
  return {'failed', attempt, '', ''}
end
if state == 'running' and ARGV[7] ~= '1' and tonumber(s[4] or '0') > tonumber(now) then
  return {'busy', attempt, s[4], s[5] or ''}
end
if attempt >= tonumber(ARGV[4]) then
  redis.call('HSET', KEYS[1], 'state', 'failed', 'finished', now, 'eta', '',
    'error', 'gave up after ' .. attempt .. ' attempts (worker lost)')
  redis.call('ZREM', KEYS[4], ARGV[6])
  redis.call('PUBLISH', ARGV[9], ARGV[6])
  return {'failed', attempt, '', ''}
end
attempt = attempt + 1
redis.call('DEL', KEYS[2], KEYS[3])
if not redis.call('HGET', KEYS[1], 'started') or redis.call('HGET', KEYS[1], 'started') == '' then
  redis.call('HSET', KEYS[1], 'started', now)
end
redis.call('HSET', KEYS[1], 'state', 'running', 'attempt', attempt, 'lease', ARGV[2],
  'holder', ARGV[3], 'progress', '0', 'nodes', '0', 'found', '0', 'truncated', '0',
  'batch', '0', 'eta', '', 'error', '', 'solution', '', 'run_started', now)
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[6])
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[4], ARGV[5])
return {'run', attempt, ARGV[2], ARGV[3], redis.call('HGETALL', KEYS[1])}
