-- step: the time limit of a call's bounded loops. Each loop that may run long
-- (a walk past tasks a search cannot take, a pool filling, obsolete leaves,
-- root jobs, a listing) stops at its count limit or once STEP_MICROS
-- microseconds have passed since the call first asked, whichever comes first;
-- the next call goes on where it stopped. Counts alone do not bound time: at
-- 1M tasks a record costs several times what it costs at 1k (cache misses),
-- and hosts differ. A loop asks only after it did some work of its own, so
-- every step moves on. STEP_MICROS is the engine's `stepTime`; 0: counts alone.

-- when the call first asked, in microseconds (nil: not yet)
local step_module = nil

-- step_spent: whether the call's time for bounded loops is spent; with
-- `share` (0 to 1), whether that share of it is (a loop that leaves the rest
-- to the loops after it)
local function step_spent(share)
  if STEP_MICROS == 0 then return false end
  local time = redis.call('TIME')
  local micros = time[1] * 1000000 + time[2]
  if step_module == nil then
    step_module = micros
    return false
  end
  return micros - step_module >= STEP_MICROS * (share or 1)
end
