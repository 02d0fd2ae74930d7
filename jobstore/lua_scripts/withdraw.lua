#!lua flags=allow-oom
-- A client's cancel of a job that identical submissions may share: the job is canceled only
-- when the caller is its last holder; with others still holding it, the caller lets go (its
-- field turns '0', so a repeated cancel changes nothing) and the job runs on for them. A job
-- created before holders were recorded has none: anyone may cancel it.
-- KEYS: job hash.
-- ARGV: the caller's holder field ('c:' .. client; see JobStore.submit).
-- Returns gone | forbidden (not one of its clients) | ended | withdrawn | let go (before) |
-- last (cancel it).
local s = redis.call('HMGET', KEYS[1], 'state', 'clients', ARGV[1])
if not s[1] then return 'gone' end
local holders = tonumber(s[2] or '0')
if not s[3] and holders > 0 then return 'forbidden' end
if s[1] ~= 'queued' and s[1] ~= 'running' then return 'ended' end
if s[3] == '0' then return 'let go' end
if s[3] == '1' and holders > 1 then
  redis.call('HSET', KEYS[1], ARGV[1], '0')
  redis.call('HINCRBY', KEYS[1], 'clients', -1)
  return 'withdrawn'
end
return 'last'
