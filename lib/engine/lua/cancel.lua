#!lua flags=allow-oom
--[[ cancel: stop a task, wherever it stands (engine.cancel, lib/engine/cancel.ts).
  The task is removed with every index entry: one nobody claimed never runs;
  one a worker runs is revoked (its owner's extend and delete find it gone)
  and the workers hear on the control channel which task to stop, so its
  handler's signal aborts at once. Its outcome is `cancelled`, and so is that
  of each task held after it (created with `after`). A held task is taken out
  of the hold.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the cancel list of lib/engine/lua/arguments.ts

  Returns  1 when cancelled, 0 when it had finished already (its outcome is kept)
  Errors   TASK_NOT_FOUND when the queue neither has the task nor keeps its outcome
]]
--- @include "task"
--- @include "request"
--- @include "owners"
--- @include "outcome"
--- @include "remove-task"
--- @include "finish"

local kept = replayed(ARGV[ARG.cancel.request])
if kept ~= nil then return tonumber(kept) end
local now = tonumber(ARGV[ARG.cancel.now_ms])
local id = ARGV[ARG.cancel.id]
local retention, most = tonumber(ARGV[ARG.cancel.retention]), tonumber(ARGV[ARG.cancel.most])
local task = load_task(id)
if task == nil then
  -- a task held after another is taken out of the hold
  local held = take_held(id)
  if held ~= nil then
    record_outcome(id, 'cancelled', held, ARGV[ARG.cancel.fields], nil, now, retention, most)
    remember(ARGV[ARG.cancel.request], now, '1')
    return 1
  end
  if redis.call('HEXISTS', K['outcomes'], id) == 1 then return 0 end
  return redis.error_reply(E_TASK_NOT_FOUND .. ' cancel: task ' .. id .. ' is not in the queue')
end
local ctx = new_context(now)
ctx.finished = id
cancel_followers(id, now, retention, most)
remove_task(id, task, ctx)
record_outcome(id, 'cancelled', task, ARGV[ARG.cancel.fields], nil, now, retention, most)
-- whoever runs it stops (a broadcast task may run on every worker)
local owner = owner_of(task)
redis.call(SIGNAL_PUBLISH, K['control'], '{"c":"' .. id .. '","w":' .. cjson.encode(owner or '') .. '}')
finish(ctx)
remember(ARGV[ARG.cancel.request], now, '1')
return 1
