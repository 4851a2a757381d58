#!lua flags=allow-oom
--[[ withdraw: remove a task no worker has claimed, for `run`'s acceptTimeout
  (lib/engine/wait.ts). The check and the removal are one step: the task
  either was claimed (and runs) or is gone with every index entry, leaving no
  outcome. Claimed means owned now, or owned once (cycles counted, or an
  attempt kept: one that failed, or one a stopping worker cut short and
  released, release.lua).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the withdraw list of lib/engine/lua/arguments.ts

  Returns  1 when removed, 0 when claimed or gone
  Errors   none
]]
--- @include "task"
--- @include "request"
--- @include "owners"
--- @include "remove-task"
--- @include "finish"

local kept = replayed(ARGV[ARG.withdraw.request])
if kept ~= nil then return tonumber(kept) end
local id = ARGV[ARG.withdraw.id]
local task = load_task(id)
if task == nil or owner_of(task) ~= nil or cycles_of(task) > 0 or redis.call('HEXISTS', K['attempts'], id) == 1 then
  return 0
end
local ctx = new_context(tonumber(ARGV[ARG.withdraw.now_ms]))
remove_task(id, task, ctx)
finish(ctx)
remember(ARGV[ARG.withdraw.request], ctx.now, '1')
return 1
