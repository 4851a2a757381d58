-- wake-parked: every parked slot of the queue searches again, after a change
-- that may let a slot take a task it could not before (a resume, a raised or
-- removed cap or rate limit). At most WAKE_PARKED_MOST slots a call (one
-- HSCAN walk of `parked-slots` up to that many); the others find the work at
-- their next poll.
--- @include "parking"
--
-- API:
--   wake_parked()   unparks the slots and publishes one wake-up naming them

local WAKE_PARKED_MOST = 1000

local function wake_parked()
  local slots, cursor = {}, '0'
  repeat
    local reply = redis.call('HSCAN', K['parked-slots'], cursor, 'COUNT', 100)
    cursor = reply[1]
    for index = 1, #reply[2], 2 do
      if #slots < WAKE_PARKED_MOST then slots[#slots + 1] = reply[2][index] end
    end
  until cursor == '0' or #slots >= WAKE_PARKED_MOST
  for _, slot_key in ipairs(slots) do parking().unpark(slot_key) end
  if #slots > 0 then redis.call(SIGNAL_PUBLISH, K['signal'], cjson.encode({ s = slots })) end
end
