-- A compose run's results: each stored once, keyed by its puzzle text (a result found again
-- after a resume, whose run restarts at a set of addends, is not stored twice), in the order
-- first stored, up to the job's cap and its client's storage budget (a result counts as one
-- solution there). Guarded by the run's token (guard.lua), as update.lua is. A shard's results
-- count against its whole job's cap (its parent's stored_all, which finish.lua compares with
-- what the shards found); a whole job's stored_count says what it stored (delete.lua gives
-- that back to the budget, as a shard's parent's stored_all).
-- KEYS: job hash, results hash, results order list.
-- ARGV: guard (the run's token), ttl, cap, budget (results a client may store within the TTL; 0: none), then
-- puzzle text / result JSON pairs.
-- Returns {status, stored}: status 0 when refused (stale run or job not running), 1 when
-- written, 2 when a new result found no room (the job is truncated: reason 'cap' or
-- 'budget'); stored: how many results the job (a shard: this shard) has stored.
local s = redis.call('HMGET', KEYS[1], 'state', 'claims', 'parent_key', 'budget_key', 'run')
local n = redis.call('LLEN', KEYS[3])
if s[1] ~= 'running' or not holds(s[2], s[5], ARGV[1]) then return {0, n} end
local parent, budget = s[3], s[4]
if parent == '' or (parent and redis.call('EXISTS', parent) == 0) then parent = nil end
local room, why = tonumber(ARGV[3]) - n, 'cap'
if parent then
  room = tonumber(ARGV[3]) - tonumber(redis.call('HGET', parent, 'stored_all') or '0')
end
if budget and budget ~= '' and tonumber(ARGV[4]) > 0 then
  local left = tonumber(ARGV[4]) - tonumber(redis.call('GET', budget) or '0')
  if left < room then room, why = left, 'budget' end
end
local status, added = 1, 0
for j = 5, #ARGV, 2 do
  if redis.call('HEXISTS', KEYS[2], ARGV[j]) == 0 then
    if added >= room then
      redis.call('HSET', KEYS[1], 'truncated', '1', 'truncated_reason', why)
      status = 2
      break
    end
    redis.call('HSET', KEYS[2], ARGV[j], ARGV[j + 1])
    redis.call('RPUSH', KEYS[3], ARGV[j])
    added = added + 1
  end
end
if parent and added > 0 then redis.call('HINCRBY', parent, 'stored_all', added) end
if budget and budget ~= '' and added > 0 then
  if redis.call('INCRBY', budget, added) == added then redis.call('EXPIRE', budget, ARGV[2]) end
end
-- A claim sets stored_count back to the solutions kept (none): this says it again.
redis.call('HSET', KEYS[1], 'stored_count', n + added)
if n + added > 0 then
  redis.call('EXPIRE', KEYS[2], ARGV[2])
  redis.call('EXPIRE', KEYS[3], ARGV[2])
end
return {status, n + added}
