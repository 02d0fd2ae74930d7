-- Hands a running job back to its queue without ending it and without spending an attempt:
-- its worker is stopping (the message goes to the front of the job's own lane, to run next),
-- or it yields its worker to jobs waiting (to the back of the TURNS band, in the lane where its
-- client takes its turn: turn.lua). A yield from the FIRST band (the job was misjudged small)
-- raises its client's misjudged flag for a while: its next jobs go to the BIG band even when
-- estimated small, a turn further back (JobStore.submit, turn.lua).
-- The run wrote its checkpoint just before; the next claim resumes from it. Record and message
-- change together, so the job is never left without a message.
-- KEYS: job hash, leases zset, queued zset, the client's set of jobs waiting in the band, stats
--       hash, the client's misjudged flag, then the band's lane lists and as many waiting zsets
--       (a stopping worker's job: its own lane's only).
-- ARGV: the run's guard (guard.lua), now, message, front ("1": next to run), lane (the band's first, or a stopping
--       worker's job's own), job_id, reason (stopped | yielded), ttl, seconds the misjudged
--       flag stays raised (0: not misjudged).
-- Returns 1 when handed back, 0 when the run no longer holds the job.
local s = redis.call('HMGET', KEYS[1], 'state', 'claims', 'run')
if s[1] ~= 'running' or not holds(s[2], s[3], ARGV[1]) then return 0 end
redis.call('HSET', KEYS[1], 'state', 'queued', 'lease', '', 'holder', '', 'run_started', '',
  'eta', '', 'lane', ARGV[5], 'queued_at', ARGV[2], 'stop', '')
local lane, message = take_turn(KEYS[4], KEYS[6], 7, KEYS[1], tonumber(ARGV[5]), ARGV[3],
  ARGV[2], ARGV[8], ARGV[4] == '1')
redis.call('HSET', KEYS[1], 'lane', lane, 'message', message)
if tonumber(ARGV[9]) > 0 then redis.call('SET', KEYS[6], '1', 'EX', ARGV[9]) end
redis.call('ZREM', KEYS[2], ARGV[6])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[6])
redis.call('EXPIRE', KEYS[3], ARGV[8])
redis.call('HINCRBY', KEYS[5], 'redeliveries:' .. ARGV[7], 1)
return 1
