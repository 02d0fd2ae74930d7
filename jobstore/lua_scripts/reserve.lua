-- Admission of a job that stores (an enumeration, a compose job) against Redis's memory watermark,
-- client by client. A job's reservation is its bytes less what it stored so far (its
-- `stored_all` when sharded, else `stored_count`, times the bytes per solution); it is dropped
-- once the job has ended, expired, or stored it all, and one whose record never appeared (a
-- create refused or lost) after `grace`. A client's reservation is the sum of its jobs', but no
-- more than its storage budget lets its jobs still store (budget less its counter, at the
-- largest bytes per solution of its jobs): its jobs together cannot store more than that.
-- The new job is refused ('share') when its client's reservation with it would pass the
-- client's share of the watermark, else ('full') when what Redis uses plus every client's
-- reservation would pass the watermark; then it is reserved.
-- KEYS: reservations hash (job key -> "bytes per-solution reserved-at client budget-key").
-- ARGV: job key, bytes, bytes per solution, used memory, limit, now, grace, ttl, client,
--       client's share (bytes; 0: none), budget (solutions a client may store; 0: none),
--       the client's budget key.
-- Returns {1} when reserved, else {0, 'share' | 'full', job keys whose end frees room...}: the
-- client's own for 'share', every client's for 'full' (a thousand at most).
local now, grace, budget = tonumber(ARGV[6]), tonumber(ARGV[7]), tonumber(ARGV[11])
local me = ARGV[9]
local clients = {}  -- client -> {bytes, largest per solution, budget key, job keys}
local function charge(client, key, left, per, budget_key)
  local c = clients[client]
  if not c then
    c = {0, 0, budget_key, {}}
    clients[client] = c
  end
  c[1] = c[1] + left
  c[2] = math.max(c[2], per)
  c[4][#c[4] + 1] = key
end
local function held(c, extra, per)  -- bytes a client's jobs (and `extra` more) may still store
  local bytes, largest = c[1] + extra, math.max(c[2], per)
  if budget > 0 and c[3] ~= '-' then
    local room = math.max(0, budget - tonumber(redis.call('GET', c[3]) or '0'))
    bytes = math.min(bytes, room * largest)
  end
  return bytes
end
local flat = redis.call('HGETALL', KEYS[1])
for i = 1, #flat, 2 do
  local bytes, per, at, client, budget_key =
    string.match(flat[i + 1], '^(%S+) (%S+) (%S+) ?(%S*) ?(%S*)$')
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
  if left > 0 then
    charge(client, flat[i], left, tonumber(per), budget_key ~= '' and budget_key or '-')
  else
    redis.call('HDEL', KEYS[1], flat[i])
  end
end
local total, mine = 0, 0
for client, c in pairs(clients) do
  local bytes = held(c, 0, 0)
  total = total + bytes
  if client == me then mine = bytes end
end
-- The refusal with the job keys of these clients: at most a thousand (enough to find an early
-- end, and few enough to unpack).
local function refused(reason, of)
  local out = {0, reason}
  for _, c in pairs(of) do
    for _, key in ipairs(c[4]) do
      if #out < 1002 then out[#out + 1] = key end
    end
  end
  return out
end
local own = clients[me] or {0, 0, ARGV[12], {}}
local with = held(own, tonumber(ARGV[2]), tonumber(ARGV[3]))
if tonumber(ARGV[10]) > 0 and with > tonumber(ARGV[10]) then
  return refused('share', {own})
end
if tonumber(ARGV[4]) + total - mine + with > tonumber(ARGV[5]) then
  return refused('full', clients)
end
redis.call('HSET', KEYS[1], ARGV[1],
  table.concat({ARGV[2], ARGV[3], ARGV[6], me, ARGV[12]}, ' '))
redis.call('EXPIRE', KEYS[1], ARGV[8])
return {1}
