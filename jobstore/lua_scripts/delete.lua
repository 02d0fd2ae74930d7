#!lua flags=allow-oom
-- Removes the stored solutions and grid of an ended job (and of its shards); the record stays,
-- marked deleted, until it expires. Only a client holding the job may ('' in ARGV: anyone, for
-- the admin); what was stored goes back to its submitter's budget. A job that identical
-- submissions share is emptied only by its last holder: before that, a holder's delete lets go
-- of it (its field turns '0'; its submitter's budget comes back at once), and the others keep
-- its solutions.
-- KEYS: job hash, then solution lists and grids (the job's, and every shard's).
-- ARGV: client, now, the client's holder field ('c:' .. client).
-- Returns gone | running (not ended yet) | forbidden (not one of its clients) | withdrawn |
-- deleted.
local s = redis.call('HMGET', KEYS[1], 'state', 'client', 'budget_key', 'stored_count',
  'stored_all', 'clients', ARGV[3])
if not s[1] then return 'gone' end
local holders = tonumber(s[6] or '0')
-- Before holders were recorded, the submitter alone held a job.
if ARGV[1] ~= '' and not s[7] and (holders > 0 or (s[2] or '') ~= ARGV[1]) then
  return 'forbidden'
end
if s[1] == 'queued' or s[1] == 'running' then return 'running' end
if ARGV[1] ~= '' and s[7] == '0' then return 'withdrawn' end  -- it let go before
local stored = tonumber(s[5] or s[4] or '0')
local function give_back()
  if s[3] and s[3] ~= '' and stored > 0 and redis.call('EXISTS', s[3]) == 1 then
    redis.call('DECRBY', s[3], math.min(stored, tonumber(redis.call('GET', s[3]))))
  end
  redis.call('HSET', KEYS[1], 'budget_key', '')
end
if ARGV[1] ~= '' and s[7] == '1' and holders > 1 then
  redis.call('HSET', KEYS[1], ARGV[3], '0')
  redis.call('HINCRBY', KEYS[1], 'clients', -1)
  if (s[2] or '') == ARGV[1] then give_back() end
  return 'withdrawn'
end
give_back()
for i = 2, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('HSET', KEYS[1], 'deleted', ARGV[2], 'stored_count', 0, 'stored_all', 0)
return 'deleted'
