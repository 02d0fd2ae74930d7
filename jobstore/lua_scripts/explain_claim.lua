-- A worker takes a queued explanation to work it out (jobstore/explanations.py): only with
-- the task message the job store sent last for it, and not while another run holds its lease;
-- with the checkpoint a run that gave it back kept, to resume from.
-- KEYS: explanation hash, job hash, the lane's waiting zset.
-- ARGV: task id, holder, now, lease until.
-- Returns {'run', puzzle, options, client, checkpoint} | {'gone'} (it or its job expired) | {'stale'} (not
-- its current message) | {'done'} (already worked out) | {'busy'} (another run has it).
local e = redis.call('HMGET', KEYS[1], 'state', 'task', 'lease', 'client', 'cp')
if not e[1] then return {'gone'} end
if e[2] ~= ARGV[1] then return {'stale'} end
if e[1] == 'done' or e[1] == 'failed' then return {'done'} end
if e[1] == 'running' and tonumber(e[3] or '0') > tonumber(ARGV[3]) then return {'busy'} end
local job = redis.call('HMGET', KEYS[2], 'puzzle', 'options')
if not job[1] then
  redis.call('DEL', KEYS[1])
  return {'gone'}
end
redis.call('HSET', KEYS[1], 'state', 'running', 'holder', ARGV[2], 'lease', ARGV[4],
  'started', ARGV[3])
redis.call('ZREM', KEYS[3], KEYS[1])
return {'run', job[1], job[2], e[4] or '', e[5] or ''}
