-- Creates a job record unless an identical live or succeeded job exists, and pushes its Celery
-- task message onto its lane's list (jobstore/messages.py builds it): the record and its
-- message appear together or not at all, in one round trip. The request is first counted
-- against the client's rates (every request counts, even an identical one). The dedup
-- string and the client's set hold job keys (not ids), so no key is built here. A job being
-- canceled, or whose stored solutions were deleted, is not handed out again: a new one is made;
-- nor is one whose list the client's budget cut once this client's budget has room again, nor
-- any to a fresh submission ("Run again": still counted against the rates and the cap).
-- Whoever submits a job holds it (a 'c:<client>' field '1', counted in 'clients'; '0' once it
-- let go): an identical submission returning the existing job makes its client a holder too
-- (withdraw.lua, delete.lua).
-- The message joins the lane of the job's band where its client takes its turn (turn.lua).
-- KEYS: job hash, dedup string, queued zset, the client's set of jobs waiting in the band, the
--       client's set of unfinished jobs (checked only when the cap is above 0), jobs zset, stats
--       hash, the client's misjudged flag, n rate window counters, the client's budget counter,
--       then the band's lane lists and as many waiting zsets.
-- ARGV: ttl, client cap (0: none), job_id, created, message, the client's holder field, n,
--       amount, seconds per rate window..., field/value pairs... (`lane`: the band's first),
--       fresh ('1': no dedup), budget (solutions a client may store; 0: none).
-- Returns {'limited', seconds} | {'existing', old_id} | {'full', ''} (the client is at its cap)
-- | {'created', lane, message as sent}.
local n = tonumber(ARGV[7])
local wait = over_rate(9, n, 8)
if wait > 0 then return {'limited', tostring(wait)} end
local budget = tonumber(ARGV[#ARGV])
local old = ARGV[#ARGV - 1] ~= '1' and redis.call('GET', KEYS[2])
if old then
  local s = redis.call('HMGET', old, 'state', 'id', 'cancel', 'deleted', 'truncated',
    'truncated_reason')
  local live = (s[1] == 'queued' or s[1] == 'running') and (s[3] or '') == ''
  -- A list the budget cut has a hole a new run can fill once the budget has room.
  local refill = s[5] == '1' and s[6] == 'budget' and budget > 0 and
    tonumber(redis.call('GET', KEYS[9 + n]) or '0') < budget
  if not refill and (live or (s[1] == 'succeeded' and (s[4] or '') == '')) then
    if redis.call('HGET', old, ARGV[6]) ~= '1' then
      redis.call('HSET', old, ARGV[6], '1')
      redis.call('HINCRBY', old, 'clients', 1)
    end
    return {'existing', s[2]}
  end
end
local ttl = tonumber(ARGV[1])
if tonumber(ARGV[2]) > 0 then
  -- An expired record counts as finished.
  local finished, live = {}, 0
  for _, key in ipairs(redis.call('SMEMBERS', KEYS[5])) do
    local s = redis.call('HGET', key, 'state')
    if not s or is_final(s) then
      finished[#finished + 1] = key
    else
      live = live + 1
    end
  end
  if live >= tonumber(ARGV[2]) then return {'full', ''} end
  for _, key in ipairs(finished) do redis.call('SREM', KEYS[5], key) end
  redis.call('SADD', KEYS[5], KEYS[1])
  redis.call('EXPIRE', KEYS[5], ttl)
end
redis.call('HSET', KEYS[1], unpack(ARGV, 8 + 2 * n, #ARGV - 2))
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], KEYS[1], 'EX', ttl)
-- Watched by the sweep: a job still queued while its queue is empty lost its message.
redis.call('ZADD', KEYS[3], ARGV[4], ARGV[3])
redis.call('EXPIRE', KEYS[3], ttl)
local first = tonumber(redis.call('HGET', KEYS[1], 'lane'))
local lane, message = take_turn(KEYS[4], KEYS[8], 10 + n, KEYS[1], first, ARGV[5], ARGV[4], ttl,
  false)
redis.call('HSET', KEYS[1], 'lane', lane, 'message', message)
redis.call('ZADD', KEYS[6], ARGV[4], ARGV[3])
redis.call('EXPIRE', KEYS[6], ttl)
redis.call('HINCRBY', KEYS[7], 'submitted:' .. redis.call('HGET', KEYS[1], 'mode'), 1)
return {'created', tostring(lane), message}
