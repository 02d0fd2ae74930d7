-- KEYS: job hash, solutions list, grid hash, leases zset.
-- ARGV: attempt, now, lease_until, ttl, cap, batch_seq, job_id, final_state ('' = still running),
--       width, batch (solutions of `width` characters each, concatenated), chunk, the finished
--       channel (the final write publishes "id\n{record as JSON}" there), n_fields,
--       field/value pairs..., n_grid, grid field/value pairs...
-- The list holds chunks of `chunk` solutions; only the last one may be partial and is topped
-- up with LSET (compact in memory, one list element per thousand solutions).
-- Returns 0 when refused (stale attempt or job not running), 1 when written, 2 when written
-- and a cancel has been requested.
local s = redis.call('HMGET', KEYS[1], 'state', 'attempt', 'cancel', 'batch')
if s[1] ~= 'running' or s[2] ~= ARGV[1] then return 0 end
local i = 13
local nf = tonumber(ARGV[i])
if nf > 0 then redis.call('HSET', KEYS[1], unpack(ARGV, i + 1, i + 2 * nf)) end
i = i + 2 * nf + 1
local ng = tonumber(ARGV[i])
if ng > 0 then redis.call('HSET', KEYS[3], unpack(ARGV, i + 1, i + 2 * ng)) end
local seq, width, data = tonumber(ARGV[6]), tonumber(ARGV[9]), ARGV[10]
if seq > tonumber(s[4] or '0') then
  local cw = tonumber(ARGV[11]) * width
  local llen = redis.call('LLEN', KEYS[2])
  local last = ''
  if llen > 0 then last = redis.call('LINDEX', KEYS[2], -1) end
  local stored = 0
  if llen > 0 then stored = ((llen - 1) * cw + #last) / width end
  local n = math.floor(#data / width)
  local room = math.max(tonumber(ARGV[5]) - stored, 0)
  if n > room then
    n = room
    redis.call('HSET', KEYS[1], 'truncated', '1')
  end
  data = string.sub(data, 1, n * width)
  if llen > 0 and #last < cw and #data > 0 then
    local fill = cw - #last
    redis.call('LSET', KEYS[2], -1, last .. string.sub(data, 1, fill))
    data = string.sub(data, fill + 1)
  end
  while #data > 0 do
    redis.call('RPUSH', KEYS[2], string.sub(data, 1, cw))
    data = string.sub(data, cw + 1)
  end
  redis.call('HSET', KEYS[1], 'batch', seq)
end
local ttl = ARGV[4]
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[1], 'state', ARGV[8], 'finished', ARGV[2], 'eta', '')
  redis.call('ZREM', KEYS[4], ARGV[7])
  -- The record goes along, so whoever waits for this job need not read it back.
  local flat, record = redis.call('HGETALL', KEYS[1]), {}
  for j = 1, #flat, 2 do record[flat[j]] = flat[j + 1] end
  redis.call('PUBLISH', ARGV[12], ARGV[7] .. '\n' .. cjson.encode(record))
else
  redis.call('HSET', KEYS[1], 'lease', ARGV[3])
  redis.call('ZADD', KEYS[4], ARGV[3], ARGV[7])
end
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('EXPIRE', KEYS[3], ttl)
redis.call('EXPIRE', KEYS[4], ttl)
if s[3] and s[3] ~= '' then return 2 end
return 1
