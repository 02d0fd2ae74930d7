-- Removes the stored solutions and grid of an ended job (and of its shards); the record stays,
-- marked deleted, until it expires. Only the job's own client may do so ('' in ARGV: anyone,
-- for the admin). What was stored goes back to the client's budget.
-- KEYS: job hash, then solution lists and grids (the job's, and every shard's).
-- ARGV: client, now.
-- Returns gone | running (not ended yet) | forbidden (another client's) | deleted.
local s = redis.call('HMGET', KEYS[1], 'state', 'client', 'budget_key', 'stored_count',
  'stored_all')
if not s[1] then return 'gone' end
if ARGV[1] ~= '' and (s[2] or '') ~= ARGV[1] then return 'forbidden' end
if s[1] == 'queued' or s[1] == 'running' then return 'running' end
local stored = tonumber(s[5] or s[4] or '0')
if s[3] and s[3] ~= '' and stored > 0 and redis.call('EXISTS', s[3]) == 1 then
  redis.call('DECRBY', s[3], math.min(stored, tonumber(redis.call('GET', s[3]))))
end
for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('HSET', KEYS[1], 'deleted', ARGV[2], 'stored_count', 0, 'stored_all', 0)
return 'deleted'
