-- Counters and histograms of the deployment, kept in one hash (KEYS named `stats` by callers)
-- so every reader sees the same numbers. Bounds are jobstore/stats.py's BOUNDS.
local BOUNDS = {'0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10',
  '30', '60', '300', '1800'}

local function observe(stats, name, value)
  for _, bound in ipairs(BOUNDS) do
    if value <= tonumber(bound) then redis.call('HINCRBY', stats, name .. ':le:' .. bound, 1) end
  end
  redis.call('HINCRBY', stats, name .. ':le:+Inf', 1)
  redis.call('HINCRBY', stats, name .. ':count', 1)
  redis.call('HINCRBYFLOAT', stats, name .. ':sum', value)
end

-- Counts a job's end (not a shard's): its state, its duration, and how long a cancel took.
local function ended(stats, job, state, now)
  local j = redis.call('HMGET', job, 'mode', 'started', 'created', 'cancel', 'parent')
  if not j[1] or (j[5] and j[5] ~= '') then return end
  redis.call('HINCRBY', stats, 'finished:' .. j[1] .. ':' .. state, 1)
  local since = tonumber((j[2] ~= '' and j[2]) or j[3] or now)
  observe(stats, 'duration:' .. j[1], math.max(0, tonumber(now) - since))
  if state == 'canceled' and j[4] and j[4] ~= '' then
    observe(stats, 'cancel_latency:', math.max(0, tonumber(now) - tonumber(j[4])))
  end
end
