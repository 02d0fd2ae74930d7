-- Sends the message of a sharded job's next shard (in the order split.lua stored): a job has
-- only a few shards queued or running at a time, so jobs take turns instead of one job's
-- hundred shards queueing ahead of everyone; its shards are its client's, so they take turns
-- with that client's other jobs too (turn.lua).
-- KEYS: parent hash, queued zset, shard hash, the client's set of jobs waiting in the shards'
--       band, its misjudged flag, then the band's lane lists and as many waiting zsets.
-- ARGV: shard id (the one the caller believes is next), message, now, ttl, the band's first
--       lane.
-- Returns 1 when sent, 0 when nothing is left to send (or the job ended), -1 when another
-- caller sent that shard first (read again and retry).
local p = redis.call('HMGET', KEYS[1], 'state', 'order', 'released')
if p[1] ~= 'running' or not p[2] then return 0 end
local k, index = tonumber(p[3] or '0'), 0
for id in string.gmatch(p[2], '[^,]+') do
  if index == k then
    if id ~= ARGV[1] then return -1 end
    redis.call('HINCRBY', KEYS[1], 'released', 1)
    redis.call('HSET', KEYS[3], 'queued_at', ARGV[3], 'lane', ARGV[5])
    local lane, message = take_turn(KEYS[4], KEYS[5], 6, KEYS[3], tonumber(ARGV[5]), ARGV[2],
      ARGV[3], ARGV[4], false)
    redis.call('HSET', KEYS[3], 'lane', lane, 'message', message)
    redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
    redis.call('EXPIRE', KEYS[2], ARGV[4])
    return 1
  end
  index = index + 1
end
return 0
