-- Starts a run of a job for one worker: a fresh job, one a stopping or yielding worker handed
-- back (same attempt), or one whose worker was lost (its lease expired, or force: its holder
-- is certainly dead), which spends an attempt; the same pool process claiming a job it holds
-- (its claim's reply lost) takes it again at once, spending none. A run resumes from the
-- job's checkpoint: the solutions stored after it are cut away and the counters go back to it.
-- KEYS: job hash, solutions list, grid hash, leases zset, stats hash, queued zset, then the
--       waiting zsets of its queue's lanes (it waits in none of them once it runs).
-- ARGV: now, lease_until, holder, max_attempts, ttl, job_id, force ("1" = ignore a live lease),
--       hard_limit (Celery kills a run this long after its task started), the finished
--       channel, chunk (solutions per list element), soft_limit (seconds of search a job may
--       use, over all its runs), the search budget a sharded job's shards share
--       (Settings.search_budget; a shard's search counts towards its parent's), the run's
--       nonce (its token, "claims:nonce", is stored as `run`: guard.lua).
-- A job taken over from a lost run ends failed "time limit" only when its search time is used
-- up: its `ran` (written with every checkpoint; a shard's job: the parent's `ran`, the sum of
-- its shards') reached its budget, or the lost run was seen writing (its lease, renewed with
-- every write) until its hard limit was nearly over, which only a run Celery killed there
-- does. Time the job spent queued, stopped or with no worker at all counts for neither.
-- Returns {status, attempt, lease, holder, record}; status: run | done | gone | busy | canceled |
-- failed; record is the job hash as a flat field/value list after a 'run' claim (else empty).
local s = redis.call('HMGET', KEYS[1], 'state', 'attempt', 'cancel', 'lease', 'holder',
  'run_started', 'cp', 'cp_stored', 'letters', 'claims', 'started', 'mode', 'created',
  'parent_key', 'budget_key', 'ran', 'shards')
if not s[1] then return {'gone', 0, '', ''} end
local state, attempt, now = s[1], tonumber(s[2] or '0'), ARGV[1]

local function finish(final, error)
  redis.call('HSET', KEYS[1], 'state', final, 'finished', now, 'eta', '', 'error', error)
  redis.call('ZREM', KEYS[4], ARGV[6])
  ended(KEYS[5], KEYS[1], final, now)
  redis.call('PUBLISH', ARGV[9], ARGV[6])
  return {final, attempt, '', ''}
end

if is_final(state) then
  return {'done', attempt, '', ''}
end
-- A split job whose run released it (release.lua: lease '0') is run by its shards: its message
-- delivered again (kombu restores a running task's unacknowledged message at a reconnect)
-- finds nothing to run, spends no attempt and changes nothing.
if state == 'running' and s[17] and s[17] ~= '' and s[4] == '0' then
  return {'done', attempt, '', ''}
end
if s[3] and s[3] ~= '' then return finish('canceled', '') end
local parent = s[14]
if parent == '' or (parent and redis.call('EXISTS', parent) == 0) then parent = nil end
if state == 'running' then
  if ARGV[7] ~= '1' and tonumber(s[4] or '0') > tonumber(now) and s[5] ~= ARGV[3] then
    return {'busy', attempt, s[4], s[5] or ''}
  end
  local used, budget = tonumber(s[16] or '0') or 0, tonumber(ARGV[11])
  if parent then
    used = tonumber(redis.call('HGET', parent, 'ran') or '0') or 0
    budget = tonumber(ARGV[12])
  end
  -- The lost run's last write: its lease less the lease's length (this claim's own).
  local wrote = tonumber(s[4] or '0') - (tonumber(ARGV[2]) - tonumber(now))
  local margin = math.min(2, tonumber(ARGV[8]) / 10)
  -- (A split job's own run only split it: its shards keep its time.)
  local split = s[17] and s[17] ~= ''
  if not split and (used >= budget or (s[6] and s[6] ~= '' and
      wrote - tonumber(s[6]) >= tonumber(ARGV[8]) - margin)) then
    return finish('failed', 'time limit')
  end
  -- Its worker was lost: that spends an attempt. Not when the same pool process claims it
  -- again: the first claim's reply was lost (Redis restarted, or a replica did not confirm
  -- it), or that process's run gave up on an unreachable Redis; nothing of it runs now.
  if ARGV[7] == '1' or s[5] ~= ARGV[3] then
    local reason = 'lease'
    if ARGV[7] == '1' then reason = 'dead_holder' end
    redis.call('HINCRBY', KEYS[5], 'redeliveries:' .. reason, 1)
    attempt = attempt + 1
  end
elseif attempt == 0 then
  attempt = 1
end
if attempt > tonumber(ARGV[4]) then
  attempt = attempt - 1
  return finish('failed', 'gave up after ' .. attempt .. ' attempts (worker lost)')
end

local width, chunk = #(s[9] or ''), tonumber(ARGV[10])
local have, keep = 0, 0
local n = redis.call('LLEN', KEYS[2])
if n > 0 and width > 0 then
  have = ((n - 1) * chunk * width + #redis.call('LINDEX', KEYS[2], -1)) / width
end
local resume = s[7] and s[7] ~= '' and width > 0
if resume then keep = math.min(have, tonumber(s[8] or '0')) end
-- Keep exactly the solutions stored up to the checkpoint (none without one).
if keep <= 0 then
  redis.call('DEL', KEYS[2])
elseif have > keep then
  local chunks = math.floor((keep + chunk - 1) / chunk)
  redis.call('LTRIM', KEYS[2], 0, chunks - 1)
  local last = redis.call('LINDEX', KEYS[2], -1)
  local tail = (keep - (chunks - 1) * chunk) * width
  if #last > tail then redis.call('LSET', KEYS[2], -1, string.sub(last, 1, tail)) end
end
-- What the cut-away solutions counted towards the job's (sharded) cap and the client's budget.
if have > keep and parent then redis.call('HINCRBY', parent, 'stored_all', keep - have) end
if have > keep and s[15] and s[15] ~= '' then redis.call('DECRBY', s[15], have - keep) end
local ran = '0'
if resume then
  local c = redis.call('HMGET', KEYS[1], 'cp_progress', 'cp_nodes', 'cp_found', 'cp_truncated',
    'cp_ran')
  ran = c[5] or '0'
  redis.call('HSET', KEYS[1], 'progress', c[1] or '0', 'nodes', c[2] or '0', 'found',
    c[3] or '0', 'truncated', c[4] or '0', 'ran', ran)
else
  redis.call('DEL', KEYS[3])
  redis.call('HSET', KEYS[1], 'progress', '0', 'nodes', '0', 'found', '0', 'truncated', '0',
    'cp', '')
  -- A split job's `ran` is its shards' search time (update.lua adds to it): it stays.
  if not s[17] or s[17] == '' then redis.call('HSET', KEYS[1], 'ran', '0') end
end
-- A shard's parent keeps the sum of its shards' `ran`: what this one goes back to comes off.
local back = (tonumber(ran) or 0) - (tonumber(s[16] or '0') or 0)
if parent and back ~= 0 then redis.call('HINCRBYFLOAT', parent, 'ran', back) end
redis.call('HSET', KEYS[1], 'stored_count', keep)
if not s[11] or s[11] == '' then
  redis.call('HSET', KEYS[1], 'started', now)
  if s[12] and s[13] then
    observe(KEYS[5], 'queue_wait:' .. s[12], math.max(0, tonumber(now) - tonumber(s[13])))
  end
end
local claims = tonumber(s[10] or '0') + 1
redis.call('HSET', KEYS[1], 'state', 'running', 'attempt', attempt, 'claims', claims,
  'run', claims .. ':' .. (ARGV[13] or ''), 'lease', ARGV[2], 'holder', ARGV[3], 'batch', '0',
  'eta', '', 'error', '', 'solution', '', 'run_started', now, 'stop', '')
redis.call('ZADD', KEYS[4], ARGV[2], ARGV[6])
redis.call('ZREM', KEYS[6], ARGV[6])
for i = 7, #KEYS do redis.call('ZREM', KEYS[i], KEYS[1]) end
redis.call('EXPIRE', KEYS[1], ARGV[5])
redis.call('EXPIRE', KEYS[4], ARGV[5])
return {'run', attempt, ARGV[2], ARGV[3], redis.call('HGETALL', KEYS[1])}
