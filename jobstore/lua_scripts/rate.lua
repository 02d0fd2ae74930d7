-- Counts one job-creating request against each of a client's rate windows (fixed windows that
-- start at their first request). KEYS from `first`: one counter per window; ARGV from `at`:
-- amount, seconds per window. Returns the seconds until the latest-ending exceeded window
-- resets (rounded up: a retry after them is in the next window), or 0 when no window is
-- exceeded. Shared by CREATE and COUNT.
local function over_rate(first, n, at)
  local wait = 0
  for i = 0, n - 1 do
    local key = KEYS[first + i]
    local count = redis.call('INCR', key)
    if count == 1 then redis.call('EXPIRE', key, ARGV[at + 2 * i + 1]) end
    if count > tonumber(ARGV[at + 2 * i]) then
      wait = math.max(wait, math.ceil(redis.call('PTTL', key) / 1000), 1)
    end
  end
  return wait
end
