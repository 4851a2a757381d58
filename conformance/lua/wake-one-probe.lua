--[[ wake-one-probe: a test-only script that runs wake_one (include/wake-one.lua)
  on the queue whose `tasks` key it is given, to tell its lean wake-up from
  the fallback to finish.

  ARGV     the clock, ms since the epoch
  Returns  1 when wake_one woke a slot or found none to wake, 0 when it left
           the wake-up to finish (having written nothing)
]]
--- @include "wake-one"

return wake_one(tonumber(ARGV[1])) and 1 or 0
