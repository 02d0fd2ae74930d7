#!lua flags=allow-oom
-- KEYS: parent hash, leases zset, shard hashes...
-- ARGV: now, n, flag_parent ("1": a user's cancel, "0": a shard failed), shard ids...
-- Sets the cancel flag on (the parent and) every unfinished shard; a shard that is queued (or
-- whose lease expired) is canceled at once, a running one stops at its next look at its flag.
-- Returns {status, changed}; status: gone | retry (the shard count changed) | done | the state.
local p = redis.call('HMGET', KEYS[1], 'state', 'cancel', 'shards')
if not p[1] then return {'gone', 0} end
if p[3] ~= ARGV[2] then return {'retry', 0} end
if is_final(p[1]) then return {'done', 0} end
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
