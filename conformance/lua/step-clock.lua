--[[ step-clock: a test-only script that asks step_spent() (include/step.lua)
  until it answers that the call's time is spent, or ARGV[1] times.

  ARGV[1]  most     how many times to ask at most
  Returns  { how many times it asked, microseconds from just before the first
           ask to just after the last }
]]
--- @include "step"

local most = tonumber(ARGV[1])
local function micros()
  local time = redis.call('TIME')
  return time[1] * 1000000 + time[2]
end
local started, asked = micros(), 0
repeat
  asked = asked + 1
until step_spent() or asked >= most
return { asked, micros() - started }
