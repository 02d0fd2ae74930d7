-- Splits a claimed enumeration into shard records (queued; dispatch.lua sends their messages a
-- few at a time, in the order given). Each shard counts against its parent's cap and its
-- client's budget, and takes turns with other jobs in the TURNS lane. The parent's `ran` starts
-- at 0: it is the search time of all its shards (update.lua adds each shard's), which the job's
-- time limit counts; time shards spend queued, stopped or with no worker counts nothing.
-- KEYS: parent hash, shard hashes... ARGV: the run's guard (guard.lua), now, ttl, n, order (shard ids in the order
-- to send them, comma-separated), lane, then per shard: id, prefix ("3,1"), share.
-- Returns split | exists | stale | canceled.
local p = redis.call('HMGET', KEYS[1], 'state', 'claims', 'cancel', 'shards', 'id', 'mode',
  'puzzle', 'options', 'letters', 'created', 'client', 'budget_key', 'estimate', 'run')
if p[1] ~= 'running' or not holds(p[2], p[14], ARGV[1]) then return 'stale' end
if p[4] and p[4] ~= '' then return 'exists' end
if p[3] and p[3] ~= '' then return 'canceled' end
local n = tonumber(ARGV[4])
for i = 1, n do
  local a = 6 + 3 * (i - 1)
  redis.call('HSET', KEYS[1 + i], 'id', ARGV[a + 1], 'mode', p[6], 'puzzle', p[7],
    'options', p[8], 'letters', p[9], 'state', 'queued', 'created', ARGV[2], 'attempt', '0',
    'parent', p[5], 'index', i - 1, 'prefix', ARGV[a + 2], 'share', ARGV[a + 3],
    'parent_key', KEYS[1], 'budget_key', p[12] or '', 'client', p[11] or '', 'lane', ARGV[6],
    'estimate', p[13] or '')
  redis.call('EXPIRE', KEYS[1 + i], ARGV[3])
end
redis.call('HSET', KEYS[1], 'shards', n, 'ran', 0, 'order', ARGV[5], 'released', 0,
  'stored_all', 0)
redis.call('EXPIRE', KEYS[1], ARGV[3])
return 'split'
