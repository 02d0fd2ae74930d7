"""Lua scripts that make every job transition atomic and guarded inside Redis.

Each script gets its keys from Python (built by worker.jobs.key_for) and returns a short status.
Terminal states are final: no script moves a succeeded/failed/canceled job anywhere else, and
every write by a worker names its attempt number, so an earlier delivery of the same job (a
stale attempt) is refused.
"""

from __future__ import annotations

# KEYS: job hash, solutions list, grid hash, leases zset.
# ARGV: now, lease_until, holder, max_attempts, ttl, job_id, force ("1" = ignore a live lease),
#       hard_limit (an attempt running longer than this was killed by it: the job failed),
#       the finished channel (every script that ends a job publishes its id there).
# Returns {status, attempt, lease, holder, record}; status: run | done | gone | busy | canceled |
# failed; record is the job hash as a flat field/value list after a 'run' claim (else empty),
# so the worker needs no second round trip to read it.
CLAIM = """
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
"""

# KEYS: job hash, solutions list, grid hash, leases zset.
# ARGV: attempt, now, lease_until, ttl, cap, batch_seq, job_id, final_state ('' = still running),
#       width, batch (solutions of `width` characters each, concatenated), chunk, the finished
#       channel (the final write publishes "id\n{record as JSON}" there), n_fields,
#       field/value pairs..., n_grid, grid field/value pairs...
# The list holds chunks of `chunk` solutions; only the last one may be partial and is topped
# up with LSET (compact in memory, one list element per thousand solutions).
# Returns 0 when refused (stale attempt or job not running), 1 when written, 2 when written
# and a cancel has been requested.
UPDATE = """
local s = redis.call('HMGET', KEYS[1], 'state', 'attempt', 'cancel', 'batch')
if s[1] ~= 'running' or s[2] ~= ARGV[1] then return 0 end
local i = 13
local nf = tonumber(ARGV[i])
if nf > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, i + 1, i + 2 * nf)) end
i = i + 2 * nf + 1
local ng = tonumber(ARGV[i])
if ng > 0 then redis.call('HSET', KEYS[3], unpack(ARGV, i + 1, i + 2 * ng)) end
local seq, width, data = tonumber(ARGV[6]), tonumber(ARGV[9]), ARGV[10]
if seq > tonumber(s[4] or '0') then
  local cw = tonumber(ARGV[11]) * width
  local llen = redis.call('LLEN', KEYS[2])
  local last = ''
  if llen > 0 then last = redis.call('LINDEX', KEYS[2], -1) end
  local stored = 0
  if llen > 0 then stored = ((llen - 1) * cw + #last) / width end
  local n = math.floor(#data / width)
  local room = math.max(tonumber(ARGV[5]) - stored, 0)
  if n > room then
    n = room
    redis.call('HSET', KEYS[1], 'truncated', '1')
  end
  data = string.sub(data, 1, n * width)
  if llen > 0 and #last < cw and #data > 0 then
    local fill = cw - #last
    redis.call('LSET', KEYS[2], -1, last .. string.sub(data, 1, fill))
    data = string.sub(data, fill + 1)
  end
  while #data > 0 do
    redis.call('RPUSH', KEYS[2], string.sub(data, 1, cw))
    data = string.sub(data, cw + 1)
  end
  redis.call('HSET', KEYS[1], 'batch', seq)
end
local ttl = ARGV[4]
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[1], 'state', ARGV[8], 'finished', ARGV[2], 'eta', '')
  redis.call('ZREM', KEYS[4], ARGV[7])
  -- The record goes along, so whoever waits for this job need not read it back.
  local flat, record = redis.call('HGETALL', KEYS[1]), {}
  for j = 1, #flat, 2 do record[flat[j]] = flat[j + 1] end
  redis.call('PUBLISH', ARGV[12], ARGV[7] .. '\\n' .. cjson.encode(record))
else
  redis.call('HSET', KEYS[1], 'lease', ARGV[3])
  redis.call('ZADD', KEYS[4], ARGV[3], ARGV[7])
end
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('EXPIRE', KEYS[3], ttl)
redis.call('EXPIRE', KEYS[4], ttl)
if s[3] and s[3] ~= '' then return 2 end
return 1
"""

# KEYS: job hash, leases zset.  ARGV: now, job_id, the finished channel.
# Returns {status, changed}; status: gone | done | already | queued | running.
CANCEL = """
local s = redis.call('HMGET', KEYS[1], 'state', 'cancel', 'lease')
if not s[1] then return {'gone', 0} end
local state = s[1]
if state == 'succeeded' or state == 'failed' or state == 'canceled' then return {'done', 0} end
if s[2] and s[2] ~= '' then return {'already', 0} end
redis.call('HSET', KEYS[1], 'cancel', ARGV[1])
if state == 'queued' or (state == 'running' and tonumber(s[3] or '0') < tonumber(ARGV[1])) then
  redis.call('HSET', KEYS[1], 'state', 'canceled', 'finished', ARGV[1], 'eta', '')
  redis.call('ZREM', KEYS[2], ARGV[2])
  redis.call('PUBLISH', ARGV[3], ARGV[2])
end
return {state, 1}
"""

# KEYS: job hash, leases zset.  ARGV: now, new_lease, job_id, dead_holder.
# Returns the job's mode when this caller won the right to re-queue a running job whose worker
# died, else ''. With dead_holder '' that means its lease expired; with a holder the sweeper
# saw dead (a process on its own machine that no longer exists), that this holder still holds
# a live lease: the lease is then ended at once, so the next claim runs without waiting and
# later sweeps do not re-queue it again. Winning pushes the sweep's score forward, so of
# several workers sweeping at once only one re-queues it.
REAP = """
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
"""

# Counts one job-creating request against each of a client's rate windows (fixed windows that
# start at their first request). KEYS from `first`: one counter per window; ARGV from `at`:
# amount, seconds per window. Returns the seconds until the latest-ending exceeded window
# resets, or 0 when no window is exceeded. Shared by CREATE and COUNT.
RATE = """
local function over_rate(first, n, at)
  local wait = 0
  for i = 0, n - 1 do
    local key = KEYS[first + i]
    local count = redis.call('INCR', key)
    if count == 1 then redis.call('EXPIRE', key, ARGV[at + 2 * i + 1]) end
    if count > tonumber(ARGV[at + 2 * i]) then
      wait = math.max(wait, redis.call('TTL', key), 1)
    end
  end
  return wait
end
"""

# Counts a request refused before CREATE could count it (a malformed body, a bad puzzle).
# KEYS: the client's window counters.  ARGV: amount, seconds per window.
# Returns seconds to wait (over a limit) or 0.
COUNT = (
    RATE
    + """
return over_rate(1, #KEYS, 1)
"""
)

# Creates a job record unless an identical live or succeeded job exists, and pushes its Celery
# task message onto the broker's list for its queue (worker/messages.py builds it): the record
# and its message appear together or not at all, in one round trip. The request is first
# counted against the client's rate windows (every request counts, even an identical one).
# KEYS: job hash, dedup string, queued zset, broker list, the client's set of unfinished ids
#       (checked only when the cap is above 0), n rate window counters.
# ARGV: job key prefix ("{p}:job:"), ttl, client cap (0: none), job_id, created, message, n,
#       amount, seconds per rate window..., field/value pairs...
# Returns {'limited', seconds} | {'existing', old_id} | {'full', ''} (the client is at its cap)
# | {'created', ''}.
CREATE = (
    RATE
    + """
local n = tonumber(ARGV[7])
local wait = over_rate(6, n, 8)
if wait > 0 then return {'limited', tostring(wait)} end
local old = redis.call('GET', KEYS[2])
if old then
  local state = redis.call('HGET', ARGV[1] .. old, 'state')
  if state == 'queued' or state == 'running' or state == 'succeeded' then
    return {'existing', old}
  end
end
local ttl = tonumber(ARGV[2])
if tonumber(ARGV[3]) > 0 then
  -- An expired record counts as finished.
  local finished, live = {}, 0
  for _, id in ipairs(redis.call('SMEMBERS', KEYS[5])) do
    local s = redis.call('HGET', ARGV[1] .. id, 'state')
    if not s or s == 'succeeded' or s == 'failed' or s == 'canceled' then
      finished[#finished + 1] = id
    else
      live = live + 1
    end
  end
  if live >= tonumber(ARGV[3]) then return {'full', ''} end
  for _, id in ipairs(finished) do redis.call('SREM', KEYS[5], id) end
  redis.call('SADD', KEYS[5], ARGV[4])
  redis.call('EXPIRE', KEYS[5], ttl)
end
redis.call('HSET', KEYS[1], unpack(ARGV, 8 + 2 * n))
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('SET', KEYS[2], ARGV[4], 'EX', ttl)
-- Watched by the sweep: a job still queued while its queue is empty lost its message.
redis.call('ZADD', KEYS[3], ARGV[5], ARGV[4])
redis.call('EXPIRE', KEYS[3], ttl)
redis.call('LPUSH', KEYS[4], ARGV[6])
return {'created', ''}
"""
)

# KEYS: queued zset, job hash, the broker's solve list, the broker's enumerate list.
# ARGV: job_id, now, cutoff (score before which the job counts as waiting long), ttl.
# Returns the job's mode when its message must be sent again: the job is still queued a while
# after its message was sent, yet its queue is empty, so the message is nowhere to be taken
# from (lost with a connection, or parked unacknowledged until the visibility timeout).
# Ids no longer queued leave the set. Winning moves the score to now: one re-send per cutoff.
RESEND = """
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
"""
