-- wake-one: the wake-up of one plain task that the lean store put in `ready`
-- (a create on a queue whose only feature is parked slots: the idle pickup
-- path), without the context, the parking module and the share gate's reads
-- of the general wake (include/finish.lua wake_slots). It writes what that
-- writes in the one common case: nobody owns a task, so the share gate lets
-- any worker take one (docs/semantics.md §3.2 phase 3), and the first slot
-- parked under no filter is live and parked under nothing else.
--- @include "features"
--
-- API:
--   wake_one(now)   true when done (a slot woken, or none parked under no
--                   filter); false, having written nothing, when the caller
--                   must wake through finish: a pause, owners, a slot whose
--                   deadline passed, or one parked some other way

local function wake_one(now)
  -- a paused queue wakes no slot: finish's check of the pause decides
  if features()['paused'] then return false end
  -- `<filter id>\0<deadline>\0<worker>\0<slot>` (include/parking.lua), here the filter id ''
  local member = redis.call('ZRANGEBYLEX', K['parked'], '[\0', '[\0\255', 'LIMIT', 0, 1)[1]
  if member == nil then return true end -- as take: nothing to wake
  if redis.call('HLEN', K['owners']) ~= 0 then return false end
  local deadline, slot_key = string.sub(member, 2, 14), string.sub(member, 16)
  if tonumber(deadline) < now or not string.find(slot_key, '\0', 1, true) then return false end
  -- parked under no filter alone: `parked-slots` lists the one filter id ''
  if redis.call('HGET', K['parked-slots'], slot_key) ~= deadline .. '\0,' then return false end
  redis.call('ZREM', K['parked'], member)
  redis.call('HDEL', K['parked-slots'], slot_key)
  redis.call('ZREM', K['parked-workers'], slot_key)
  redis.call(SIGNAL_PUBLISH, K['signal'], cjson.encode({ s = { slot_key } }))
  return true
end
