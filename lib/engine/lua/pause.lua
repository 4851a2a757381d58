#!lua flags=allow-oom
--[[ pause: pause or resume the whole queue, or the tasks a query matches
  (docs/semantics.md §3.14, §3.17).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the pause list of lib/engine/lua/arguments.ts

  A paused queue has its `paused` key (when it was paused, ms) and the
  `paused` field of `features`: searches (search.lua, the plain and lean
  paths) hand out no task while it exists; creates, completions, extends,
  expire and ticker go on. Resume removes both and wakes the parked slots
  (include/wake-parked.lua).

  A paused query is a field of `paused-queries` (its id -> `<ms>\0<JSON>`,
  at most 32) and the `paused-queries` field of `features`: the tasks it
  matches wait in `aside` (include/pools.lua) instead of their ready pools.
  This script stores or removes it; aside.lua moves the tasks, a bounded
  step a call.

  Returns  1 when the queue's state changed, 0 when it already was so, -1
           when 32 queries are paused already (pause-query)
  Errors   none
]]
--- @include "features"
--- @include "wake-parked"

-- how many queries may be paused at once
local PAUSED_QUERIES_MOST = 32
local operation = ARGV[ARG.pause.operation]

if operation == 'pause-query' then
  local query_id = ARGV[ARG.pause.query_id]
  if redis.call('HEXISTS', K['paused-queries'], query_id) == 1 then return 0 end
  if redis.call('HLEN', K['paused-queries']) >= PAUSED_QUERIES_MOST then return -1 end
  redis.call('HSET', K['paused-queries'], query_id, ARGV[ARG.pause.now_ms] .. '\0' .. ARGV[ARG.pause.query])
  use_feature('paused-queries')
  return 1
end

if operation == 'resume-query' then
  -- the tasks set aside under it join their pools again (aside.lua drain-query), which wakes slots
  if redis.call('HDEL', K['paused-queries'], ARGV[ARG.pause.query_id]) == 0 then return 0 end
  if redis.call('EXISTS', K['paused-queries']) == 0 then redis.call('HDEL', K['features'], 'paused-queries') end
  return 1
end

if operation == 'pause' then
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
