-- A compose run's results: each stored once, keyed by its puzzle text (a result found again
-- after a resume, whose run restarts at a set of addends, is not stored twice), in the order
-- first stored, up to the job's cap. Guarded by the run's claim number, as update.lua is.
-- KEYS: job hash, results hash, results order list.
-- ARGV: claims, ttl, cap, then puzzle text / result JSON pairs.
-- Returns {status, stored}: status 0 when refused (stale run or job not running), 1 when
-- written, 2 when a new result found no room (the job is truncated: reason 'cap');
-- stored: how many results the job has stored.
local s = redis.call('HMGET', KEYS[1], 'state', 'claims')
local n = redis.call('LLEN', KEYS[3])
if s[1] ~= 'running' or s[2] ~= ARGV[1] then return {0, n} end
local cap, status = tonumber(ARGV[3]), 1
for j = 4, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[2], ARGV[j]) == 0 then
    if n >= cap then
      redis.call('HSET', KEYS[1], 'truncated', '1', 'truncated_reason', 'cap')
      status = 2
      break
    end
    redis.call('HSET', KEYS[2], ARGV[j], ARGV[j + 1])
    redis.call('RPUSH', KEYS[3], ARGV[j])
    n = n + 1
  end
end
if n > 0 then
  redis.call('EXPIRE', KEYS[2], ARGV[2])
  redis.call('EXPIRE', KEYS[3], ARGV[2])
end
return {status, n}
