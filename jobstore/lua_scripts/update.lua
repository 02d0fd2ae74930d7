-- A running job's write: progress fields (with its checkpoint), grid cells, one batch of
-- solutions, and at the end its final state. Guarded by the run's claim number, so a run that
-- lost its claim (taken over, or handed back) writes nothing.
-- KEYS: job hash, solutions list, grid hash, leases zset, stats hash, then n_lanes waiting
--       zsets (job keys) of the lanes whose jobs this run should yield its worker to.
-- ARGV: the run's guard (guard.lua), now, lease_until, ttl, cap, batch_seq, job_id, final_state ('' = still running),
--       width, batch (solutions of `width` characters each, concatenated), chunk, the finished
--       channel (the final write publishes "id\n{record as JSON}" there), budget (solutions a
--       client may store within the TTL; 0: no budget), n_lanes, n_fields, field/value pairs...,
--       n_grid, grid field/value pairs...
-- The list holds chunks of `chunk` solutions; only the last one may be partial and is topped
-- up with LSET (compact in memory, one list element per thousand solutions). What is stored is
-- capped by the job's cap (for a shard: the cap of its whole job) and the client's budget.
-- A shard's `ran` (its search time) goes into its parent's `ran` as it grows, so the parent's
-- is the search time of all its shards: the job's time limit counts that.
-- The final write names the run that ended the job: its fields hold ended_by, the run's token.
-- Returns {status, job_ran}: status 0 when refused (stale run or job not running), else 1 when
-- written, 2 when a cancel was requested, 3 when the worker is asked to stop (it hands the
-- job back), 4 when another job waits in a lane that should go first (the run should yield
-- its worker); job_ran is a shard's parent's `ran` after this write ('' for a whole job).
local s = redis.call('HMGET', KEYS[1], 'state', 'claims', 'cancel', 'batch', 'stop',
  'stored_count', 'parent_key', 'budget_key', 'ran', 'ended_by', 'run')
if s[1] ~= 'running' or not holds(s[2], s[11], ARGV[1]) then
  -- This run's own final write sent again (its reply was lost: Redis restarted, or a replica
  -- did not confirm it): it is written, and the run hears so, not that it lost the job. The
  -- run is known by the token its final write stores (ended_by), not by its claim number
  -- alone, which a claim lost in a failover can hand out twice.
  if ARGV[8] ~= '' and s[1] == ARGV[8] and holds(s[2], s[11], ARGV[1]) and s[10] then
    for j = 16, 15 + 2 * tonumber(ARGV[15]), 2 do
      if ARGV[j] == 'ended_by' and ARGV[j + 1] == s[10] then
        if s[3] and s[3] ~= '' then return {2, ''} end
        return {1, ''}
      end
    end
  end
  return {0, ''}
end
local parent = s[7]
if parent == '' or (parent and redis.call('EXISTS', parent) == 0) then parent = nil end
local job_ran = ''
local lanes = tonumber(ARGV[14])
local i = 15
local nf = tonumber(ARGV[i])
local checkpoint = false
if nf > 0 then
  redis.call('HSET', KEYS[1], unpack(ARGV, i + 1, i + 2 * nf))
  for j = i + 1, i + 2 * nf, 2 do
    if ARGV[j] == 'cp' then checkpoint = true end
    if ARGV[j] == 'ran' and parent then
      local more = (tonumber(ARGV[j + 1]) or 0) - (tonumber(s[9] or '0') or 0)
      job_ran = redis.call('HINCRBYFLOAT', parent, 'ran', more)
    end
  end
end
if parent and job_ran == '' then job_ran = redis.call('HGET', parent, 'ran') or '0' end
i = i + 2 * nf + 1
local ng = tonumber(ARGV[i])
if ng > 0 then redis.call('HSET', KEYS[3], unpack(ARGV, i + 1, i + 2 * ng)) end
local seq, width, data = tonumber(ARGV[6]), tonumber(ARGV[9]), ARGV[10]
local ttl = ARGV[4]
if seq > tonumber(s[4] or '0') then
  local cw = tonumber(ARGV[11]) * width
  local stored = tonumber(s[6] or '0')
  local n = math.floor(#data / width)
  local room, why = tonumber(ARGV[5]) - stored, 'cap'
  local budget = s[8]
  if parent then
    room = math.min(room, tonumber(ARGV[5]) - tonumber(redis.call('HGET', parent, 'stored_all')
      or '0'))
  end
  if budget and budget ~= '' and tonumber(ARGV[13]) > 0 then
    local left = tonumber(ARGV[13]) - tonumber(redis.call('GET', budget) or '0')
    if left < room then room, why = left, 'budget' end
  end
  room = math.max(room, 0)
  if n > room then
    n = room
    redis.call('HSET', KEYS[1], 'truncated', '1', 'truncated_reason', why)
  end
  data = string.sub(data, 1, n * width)
  if n > 0 then
    local llen = redis.call('LLEN', KEYS[2])
    local last = ''
    if llen > 0 then last = redis.call('LINDEX', KEYS[2], -1) end
    if llen > 0 and #last < cw then
      local fill = cw - #last
      redis.call('LSET', KEYS[2], -1, last .. string.sub(data, 1, fill))
      data = string.sub(data, fill + 1)
    end
    while #data > 0 do
      redis.call('RPUSH', KEYS[2], string.sub(data, 1, cw))
      data = string.sub(data, cw + 1)
    end
    redis.call('HSET', KEYS[1], 'stored_count', stored + n)
    if parent then redis.call('HINCRBY', parent, 'stored_all', n) end
    if budget and budget ~= '' then
      if redis.call('INCRBY', budget, n) == n then redis.call('EXPIRE', budget, ttl) end
    end
  end
  redis.call('HSET', KEYS[1], 'batch', seq)
end
if checkpoint then
  -- What a resumed run keeps: exactly the solutions stored up to this write.
  local c = redis.call('HMGET', KEYS[1], 'stored_count', 'truncated')
  redis.call('HSET', KEYS[1], 'cp_stored', c[1] or '0', 'cp_truncated', c[2] or '0')
end
if ARGV[8] ~= '' then
  redis.call('HSET', KEYS[1], 'state', ARGV[8], 'finished', ARGV[2], 'eta', '')
  redis.call('ZREM', KEYS[4], ARGV[7])
  ended(KEYS[5], KEYS[1], ARGV[8], ARGV[2])
  -- The record goes along, so whoever waits for this job need not read it back.
  local flat, record = redis.call('HGETALL', KEYS[1]), {}
  for j = 1, #flat, 2 do
    -- Not the task message (a kilobyte no reader of an ended job needs).
    if flat[j] ~= 'message' then record[flat[j]] = flat[j + 1] end
  end
  redis.call('PUBLISH', ARGV[12], ARGV[7] .. '\n' .. cjson.encode(record))
else
  redis.call('HSET', KEYS[1], 'lease', ARGV[3])
  redis.call('ZADD', KEYS[4], ARGV[3], ARGV[7])
end
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[2], ttl)
redis.call('EXPIRE', KEYS[3], ttl)
redis.call('EXPIRE', KEYS[4], ttl)
if s[3] and s[3] ~= '' then return {2, job_ran} end
if ARGV[8] ~= '' then return {1, job_ran} end
if s[5] and s[5] ~= '' then return {3, job_ran} end
-- Another job queued in one of those lanes (members that are no longer queued are dropped).
for j = 1, lanes do
  for _, key in ipairs(redis.call('ZRANGE', KEYS[5 + j], 0, 7)) do
    if key ~= KEYS[1] and redis.call('HGET', key, 'state') == 'queued' then
      return {4, job_ran}
    end
    if key ~= KEYS[1] then redis.call('ZREM', KEYS[5 + j], key) end
  end
end
return {1, job_ran}
