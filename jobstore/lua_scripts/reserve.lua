-- Admission of a job that stores (an enumeration, a compose job) against Redis's memory watermark:
-- what Redis uses now, plus what the enumerations admitted before may still store, plus what
-- this one may store, must stay under it; then this one's share is reserved. A job's share is
-- its bytes less what it stored so far (its `stored_all` when sharded, else `stored_count`,
-- times the bytes per solution); it is dropped once the job has ended, expired, or stored it
-- all, and a reservation whose record never appeared (a create refused or lost) after `grace`.
-- KEYS: reservations hash (job key -> "bytes per-solution reserved-at").
-- ARGV: job key, bytes, bytes per solution, used memory, limit, now, grace, ttl.
-- Returns {1, bytes reserved before} when reserved, {0, bytes reserved} when refused.
local now, grace = tonumber(ARGV[6]), tonumber(ARGV[7])
local reserved = 0
local flat = redis.call('HGETALL', KEYS[1])
for i = 1, #flat, 2 do
  local bytes, per, at = string.match(flat[i + 1], '^(%S+) (%S+) (%S+)$')
  local left = 0
  if bytes then
    local s = redis.call('HMGET', flat[i], 'state', 'stored_all', 'stored_count')
    if s[1] then
      if not is_final(s[1]) then
        left = tonumber(bytes) - tonumber(per) * tonumber(s[2] or s[3] or '0')
      end
    elseif now - tonumber(at) < grace then
      left = tonumber(bytes)  -- its record is being created
    end
  end
  if left > 0 then reserved = reserved + left else redis.call('HDEL', KEYS[1], flat[i]) end
end
if tonumber(ARGV[4]) + reserved + tonumber(ARGV[2]) > tonumber(ARGV[5]) then
  return {0, string.format('%d', reserved)}
end
redis.call('HSET', KEYS[1], ARGV[1], ARGV[2] .. ' ' .. ARGV[3] .. ' ' .. ARGV[6])
redis.call('EXPIRE', KEYS[1], ARGV[8])
return {1, string.format('%d', reserved)}
