#!lua flags=allow-oom
--[[ pause: pause or resume the whole queue (docs/semantics.md §3.14).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the pause list of lib/engine/lua/arguments.ts

  A paused queue has its `paused` key (when it was paused, ms) and the
  `paused` field of `features`: searches (search.lua, the plain and lean
  paths) hand out no task while it exists; creates, completions, extends,
  expire and ticker go on. Resume removes both and wakes the parked slots
  (include/wake-parked.lua).

  Returns  1 when the queue's state changed, 0 when it already was so
  Errors   none
]]
--- @include "features"
--- @include "wake-parked"

if ARGV[ARG.pause.operation] == 'pause' then
  if redis.call('EXISTS', K['paused']) == 1 then return 0 end
  redis.call('SET', K['paused'], ARGV[ARG.pause.now_ms])
  use_feature('paused')
  return 1
end

if redis.call('EXISTS', K['paused']) == 0 then return 0 end
redis.call('UNLINK', K['paused'])
redis.call('HDEL', K['features'], 'paused')
-- every parked slot searches again: it parked while the queue handed out nothing
wake_parked()
return 1
