#!lua flags=allow-oom
--[[ rates: declare, change or remove the queue's rate limits (engine.rateLimits() reads
  `rates` itself) (docs/semantics.md §3.16).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the rates list of lib/engine/lua/arguments.ts

  A limit counts from its next claim. Changing a limit keeps the window of
  each value (a lower limit may close it at once, a higher one opens it);
  removing one drops the windows of its values (one walk of `rate-windows`)
  and keeps the holds of context.rateLimit. Raising or removing a limit wakes
  the parked slots (include/wake-parked.lua).

  Returns  0 when the limits already were so; when they changed, what the
           engine does next with aside.lua (docs/semantics.md §3.17): 1 nothing,
           2 sort, 3 refill, 4 drain-key (as caps.lua)
  Errors   none
]]
--- @include "features"
--- @include "wake-parked"

local operation, key = ARGV[ARG.rates.operation], ARGV[ARG.rates.key]

local function limit_of(stored)
  if not stored then return nil end
  return tonumber(string.match(stored, '^(%d+):') or '0') / tonumber(string.match(stored, ':(%d+)$') or '1')
end

local was = redis.call('HGET', K['rates'], key)

if operation == 'set' then
  local rate = ARGV[ARG.rates.claims] .. ':' .. ARGV[ARG.rates.window_ms]
  if was == rate then return 0 end
  redis.call('HSET', K['rates'], key, rate)
  use_feature('rates')
  if was and limit_of(rate) > limit_of(was) then
    wake_parked()
    if key ~= '' then return 3 end -- its lanes have more room
  end
  -- a key's first rate limit (and no cap): its tasks are sorted into lanes
  if not was and key ~= '' and redis.call('HEXISTS', K['caps'], key) == 0 then return 2 end
  return 1
end

-- remove
if was == false then return 0 end
redis.call('HDEL', K['rates'], key)
if redis.call('EXISTS', K['rates']) == 0 then redis.call('HDEL', K['features'], 'rates') end
-- nil for the whole queue (its window is the field ''), else the key's fields' prefix
local prefix = nil
if key ~= '' then prefix = key .. '\0' end
local dropped, cursor = {}, '0'
repeat
  local reply = redis.call('HSCAN', K['rate-windows'], cursor, 'COUNT', 100)
  cursor = reply[1]
  for index = 1, #reply[2], 2 do
    local field, window = reply[2][index], reply[2][index + 1]
    local mine = (prefix == nil and field == '') or (prefix ~= nil and string.sub(field, 1, #prefix) == prefix)
    -- a hold (claims -1) outlives the limit: context.rateLimit said so
    if mine and not string.match(window, ':%-1$') then dropped[#dropped + 1] = field end
  end
until cursor == '0'
for _, field in ipairs(dropped) do
  redis.call('HDEL', K['rate-windows'], field)
  redis.call('ZREM', K['rate-expiry'], field)
end
wake_parked()
if key ~= '' then
  -- its values' lanes: still there with a cap (more room), else gone
  if redis.call('HEXISTS', K['caps'], key) == 1 then return 3 end
  return 4
end
return 1
