#!lua flags=allow-oom
-- A user's (or an operator's) cancel: sets the job's cancel flag; a queued job, or one whose
-- lease expired, ends canceled at once, a running one at its run's next look at the flag.
-- KEYS: job hash, leases zset, stats hash.  ARGV: now, job_id, the finished channel.
-- Returns {status, changed}; status: gone | done | already | queued | running.
local s = redis.call('HMGET', KEYS[1], 'state', 'cancel', 'lease')
if not s[1] then return {'gone', 0} end
local state = s[1]
if is_final(state) then return {'done', 0} end
local lost = state == 'running' and tonumber(s[3] or '0') < tonumber(ARGV[1])
-- Asked before, and its run still holds it: that run stops at its next look. A run whose
-- lease has expired since (its worker lost) looks no more, so a repeated cancel ends it now.
if s[2] and s[2] ~= '' and not lost then return {'already', 0} end
if not s[2] or s[2] == '' then redis.call('HSET', KEYS[1], 'cancel', ARGV[1]) end
if state == 'queued' or lost then
  redis.call('HSET', KEYS[1], 'state', 'canceled', 'finished', ARGV[1], 'eta', '')
  redis.call('ZREM', KEYS[2], ARGV[2])
  ended(KEYS[3], KEYS[1], 'canceled', ARGV[1])
  redis.call('PUBLISH', ARGV[3], ARGV[2])
end
return {state, 1}
