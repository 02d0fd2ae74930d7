-- Counts a request refused before CREATE could count it (a malformed body, a bad puzzle).
-- KEYS: the client's window counters.  ARGV: amount, seconds per window.
-- Returns seconds to wait (over a limit) or 0.
return over_rate(1, #KEYS, 1)
