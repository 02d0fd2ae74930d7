"""Lua scripts of sharded enumeration (worker/shards.py): split, release, finish, cancel.

Like worker/scripts.py: keys come from Python (key_for), every write is guarded by state and
attempt, and terminal states are final.
"""

from __future__ import annotations

# KEYS: parent hash, shard hashes... ARGV: attempt, now, ttl, deadline, n, then per shard:
# id, prefix ("3,1"), share. Returns split | exists | stale | canceled.
SPLIT = """
local p = redis.call('HMGET', KEYS[1], 'state', 'attempt', 'cancel', 'shards', 'id', 'mode',
  'puzzle', 'options', 'letters', 'created')
if p[1] ~= 'running' or p[2] ~= ARGV[1] then return 'stale' end
if p[4] and p[4] ~= '' then return 'exists' end
if p[3] and p[3] ~= '' then return 'canceled' end
local n = tonumber(ARGV[5])
for i = 1, n do
  local a = 5 + 3 * (i - 1)
  redis.call('HSET', KEYS[1 + i], 'id', ARGV[a + 1], 'mode', p[6], 'puzzle', p[7],
    'options', p[8], 'letters', p[9], 'state', 'queued', 'created', ARGV[2], 'attempt', '0',
    'parent', p[5], 'index', i - 1, 'prefix', ARGV[a + 2], 'share', ARGV[a + 3])
  redis.call('EXPIRE', KEYS[1 + i], ARGV[3])
end
redis.call('HSET', KEYS[1], 'shards', n, 'deadline', ARGV[4])
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 'split'
"""

# KEYS: parent hash, leases zset.  ARGV: attempt, parent id.
# Every shard task is sent: the parent no longer needs a lease of its own (the shards have one).
RELEASE = """
local p = redis.call('HMGET', KEYS[1], 'state', 'attempt')
if p[1] ~= 'running' or p[2] ~= ARGV[1] then return 0 end
redis.call('HSET', KEYS[1], 'lease', '0')
redis.call('ZREM', KEYS[2], ARGV[2])
return 1
"""

# KEYS: parent hash, leases zset, then n shard hashes, n solution lists, n grids.
# ARGV: now, n, ttl, parent id, cap (solutions stored at most), the finished channel.
# When every shard is terminal, ends the parent and refreshes every key's TTL.
# Returns the parent's state (running while a shard is not terminal), gone or mismatch.
FINISH = """
local p = redis.call('HMGET', KEYS[1], 'state', 'shards')
if not p[1] then return 'gone' end
if p[1] == 'succeeded' or p[1] == 'failed' or p[1] == 'canceled' then return p[1] end
if p[2] ~= ARGV[2] then return 'mismatch' end
local n = tonumber(ARGV[2])
local found, nodes, progress, failed, canceled = 0, 0, 0, nil, false
for i = 1, n do
  local s = redis.call('HMGET', KEYS[2 + i], 'state', 'found', 'nodes', 'progress', 'share',
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
if failed then state = 'failed' elseif canceled then state = 'canceled' end
if state == 'succeeded' then progress = 1 else progress = math.min(progress, 0.999999) end
local truncated = '0'
if found > tonumber(ARGV[5]) then truncated = '1' end
redis.call('HSET', KEYS[1], 'state', state, 'finished', ARGV[1], 'eta', '', 'found',
  string.format('%d', found), 'nodes', string.format('%d', nodes), 'progress',
  string.format('%.17g', progress), 'truncated', truncated, 'error', failed or '')
redis.call('ZREM', KEYS[2], ARGV[4])
for i = 1, #KEYS do
  if i ~= 2 then redis.call('EXPIRE', KEYS[i], ARGV[3]) end
end
redis.call('PUBLISH', ARGV[6], ARGV[4])
return state
"""

# KEYS: parent hash, leases zset, shard hashes...
# ARGV: now, n, flag_parent ("1": a user's cancel, "0": a shard failed), shard ids...
# Sets the cancel flag on (the parent and) every unfinished shard; a shard that is queued (or
# whose lease expired) is canceled at once, a running one stops at its next look at its flag.
# Returns {status, changed}; status: gone | retry (the shard count changed) | done | the state.
CANCEL_TREE = """
local p = redis.call('HMGET', KEYS[1], 'state', 'cancel', 'shards')
if not p[1] then return {'gone', 0} end
if p[3] ~= ARGV[2] then return {'retry', 0} end
if p[1] == 'succeeded' or p[1] == 'failed' or p[1] == 'canceled' then return {'done', 0} end
local changed = 0
if ARGV[3] == '1' and (not p[2] or p[2] == '') then
  redis.call('HSET', KEYS[1], 'cancel', ARGV[1])
  changed = 1
end
for i = 3, #KEYS do
  local s = redis.call('HMGET', KEYS[i], 'state', 'cancel', 'lease')
  if s[1] == 'queued' or s[1] == 'running' then
    if not s[2] or s[2] == '' then redis.call('HSET', KEYS[i], 'cancel', ARGV[1]) end
    if s[1] == 'queued' or tonumber(s[3] or '0') < tonumber(ARGV[1]) then
      redis.call('HSET', KEYS[i], 'state', 'canceled', 'finished', ARGV[1], 'eta', '')
      redis.call('ZREM', KEYS[2], ARGV[i + 1])
    end
  end
end
return {p[1], changed}
"""
