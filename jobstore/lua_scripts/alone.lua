-- Ends one piece of a client's work that runs one at a time (JobStore.alone): deletes the
-- client's marker only if it is still this run's (one that expired and was taken is not).
-- KEYS: the marker.  ARGV: this run's token.  Returns 1 if deleted, else 0.
if redis.call('GET', KEYS[1]) == ARGV[1] then
  return redis.call('DEL', KEYS[1])
end
return 0
