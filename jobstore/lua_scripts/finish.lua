#!lua flags=allow-oom
-- KEYS: parent hash, leases zset, stats hash, then n shard hashes, n solution lists, n grids.
-- ARGV: now, n, ttl, parent id, cap (solutions stored at most), the finished channel.
-- Only a user's cancel (the parent's cancel flag) ends a sharded job canceled: shards stopped
-- because a sibling failed (its time limit, its attempts) make the whole job fail with that
-- sibling's error.
-- When every shard is terminal, ends the parent and refreshes every key's TTL.
-- Returns the parent's state (running while a shard is not terminal), gone or mismatch.
local p = redis.call('HMGET', KEYS[1], 'state', 'shards', 'cancel')
if not p[1] then return 'gone' end
if is_final(p[1]) then return p[1] end
if p[2] ~= ARGV[2] then return 'mismatch' end
local n = tonumber(ARGV[2])
local found, nodes, progress, failed, canceled = 0, 0, 0, nil, false
for i = 1, n do
  local s = redis.call('HMGET', KEYS[3 + i], 'state', 'found', 'nodes', 'progress', 'share',
    'error')
  if not s[1] then
    failed = failed or 'a shard expired'
  elseif s[1] == 'failed' then
    failed = failed or (s[6] ~= '' and s[6]) or 'a shard failed'
  elseif s[1] == 'canceled' then
    canceled = true
  elseif s[1] ~= 'succeeded' then
    return 'running'
  end
  found = found + tonumber(s[2] or '0')
  nodes = nodes + tonumber(s[3] or '0')
  if s[1] == 'succeeded' then
    progress = progress + tonumber(s[5] or '0')
  else
    progress = progress + tonumber(s[5] or '0') * tonumber(s[4] or '0')
  end
end
local state = 'succeeded'
local flagged = p[3] and p[3] ~= ''
if canceled and not failed and not flagged then failed = 'a shard was stopped' end
if failed and not flagged then state = 'failed' elseif canceled or failed then state = 'canceled' end
-- Short of 1 as a running job's (jobstore/shards.py merged): progress never goes down.
if state == 'succeeded' then progress = 1 else progress = math.min(progress, 1 - 2 ^ -40) end
-- Stored fewer than found: the job's cap, or (when a shard says so) its client's budget. A
-- count, or a compose job's count_only (its options JSON, sorted keys, as the store wrote
-- it), stores none by design: never truncated.
local truncated, why = '0', ''
local kind = redis.call('HMGET', KEYS[1], 'mode', 'options')
local counting = kind[1] == 'count' or
  (kind[1] == 'compose' and string.find(kind[2] or '', '"count_only": true', 1, true) ~= nil)
if not counting and tonumber(redis.call('HGET', KEYS[1], 'stored_all') or '0') < found then
  truncated, why = '1', 'cap'
  for i = 1, n do
    if redis.call('HGET', KEYS[3 + i], 'truncated_reason') == 'budget' then why = 'budget' end
  end
end
redis.call('HSET', KEYS[1], 'state', state, 'finished', ARGV[1], 'eta', '', 'found',
  string.format('%d', found), 'nodes', string.format('%d', nodes), 'progress',
  string.format('%.17g', progress), 'truncated', truncated, 'truncated_reason', why, 'error',
  (state == 'failed' and failed) or '')
redis.call('ZREM', KEYS[2], ARGV[4])
for i = 1, #KEYS do
  if i ~= 2 and i ~= 3 then redis.call('EXPIRE', KEYS[i], ARGV[3]) end
end
ended(KEYS[3], KEYS[1], state, ARGV[1])
redis.call('PUBLISH', ARGV[6], ARGV[4])
return state
