-- Clients take turns within a band of lanes (jobstore/lanes.py): a job joins the band's first
-- lane plus how many jobs its client already has waiting in the band (counted up to the band's
-- last lane), plus one while that client's jobs were lately misjudged small (JobStore.submit
-- then sends its small ones to the BIG band too). The client's set of job keys waiting in the
-- band is tidied on the way (members no longer queued in the band leave it; the oldest are
-- looked at first, so the work per call stays small). The job joins that set, its message
-- (kombu's priority rewritten to the lane, which kombu's restore of an unacked message reads)
-- goes onto the lane's list (at the front: the next taken, for a stopping worker's job), and
-- the job key into the lane's waiting set. Shared by CREATE, PUTBACK and DISPATCH.
-- mine: the client's set; flag: its misjudged flag; KEYS from `at` to the last: the band's lane
-- lists, then as many waiting sets. Returns the lane and the message as sent.
local function take_turn(mine, flag, at, job, first, message, now, ttl, front)
  local lanes = (#KEYS - at + 1) / 2
  local rank, kept = redis.call('EXISTS', flag), 0
  local last = first + lanes - 1
  while rank < lanes - 1 do
    local members = redis.call('ZRANGE', mine, kept, kept + 15)
    if #members == 0 then break end
    for _, key in ipairs(members) do
      local s = redis.call('HMGET', key, 'state', 'lane')
      local lane = tonumber(s[2] or '')
      if key == job then
        kept = kept + 1
      elseif s[1] == 'queued' and lane and lane >= first and lane <= last then
        kept, rank = kept + 1, rank + 1
        if rank >= lanes - 1 then break end
      else
        redis.call('ZREM', mine, key)
      end
    end
  end
  local step = math.min(rank, lanes - 1)
  local lane = first + step
  message = (string.gsub(message, '"priority": %d+', '"priority": ' .. lane, 1))
  if front then
    redis.call('RPUSH', KEYS[at + step], message)
  else
    redis.call('LPUSH', KEYS[at + step], message)
  end
  redis.call('ZADD', KEYS[at + lanes + step], now, job)
  redis.call('EXPIRE', KEYS[at + lanes + step], ttl)
  redis.call('ZADD', mine, now, job)
  redis.call('EXPIRE', mine, ttl)
  return lane, message
end
