-- A run's guard (the first ARGV of its writes): its token "claims:nonce", the claim's number and
-- the name its claim stored in the job (`run`); an older worker's is the number alone. The run
-- still holds the job when both match: a claim lost in a failover (its write gone with the
-- master that took it) hands its number out again, never its name, so the lost run's writes
-- are refused instead of mixing with the new run's.
local function holds(claims, run, guard)
  local number, name = string.match(guard, '^(%d+):?(.*)$')
  if number == nil or claims ~= number then return false end
  return name == '' or run == guard
end
