-- KEYS: solution lists.  ARGV: width, chunk.  Returns the number stored in each list.
local out = {}
local cw = tonumber(ARGV[1]) * tonumber(ARGV[2])
for i = 1, #KEYS do
  local n = redis.call('LLEN', KEYS[i])
  if n == 0 then out[i] = 0 else
    out[i] = ((n - 1) * cw + #redis.call('LINDEX', KEYS[i], -1)) / tonumber(ARGV[1])
  end
end
return out
