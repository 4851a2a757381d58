#!lua flags=allow-oom
--[[ delete: complete a task, steps 2 to 7 of docs/semantics.md §3.3 (include/delete.lua).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the delete list of lib/engine/lua/arguments.ts; children: a JSON array of
           spawned lists, the tasks as create takes them

  Returns  { result, emitted, halted }: result 1 (deleted: its outcome,
           completed, is recorded and told on the task's watch channel, and
           the tasks held after it are released; with bypass the outcome is
           removed, and so is that of each task held after it, which is
           removed instead of released) or 2 (requeued), either way
           its spawned tasks are stored; emitted: children gate templates
           emitted; halted: 1 when the requeue halted the task (circuit
           breaker), else 0. The same again
           for the same request
  Errors   TASK_NOT_FOUND, TASK_OUTDATED (the copy's worker or fencing token is
           not the stored claim's), TASK_CRON, TASK_LIMIT (a spawned leaf with
           a root of patterns and no room), all before the first write
]]
--- @include "request"
--- @include "owners"
--- @include "delete-request"
--- @include "delete"
--- @include "finish"

local request = delete_request(0)
local kept = replayed(ARGV[ARG.delete.request])
if kept ~= nil then
  local result, emitted, halted = string.match(kept, '^(%d+):(%d+):(%d+)$')
  return { tonumber(result), tonumber(emitted), tonumber(halted) }
end
local ctx = new_context(request.now)
ctx.op = 'delete'
local result = delete(request, ctx)
if type(result) == 'table' then return result end
finish(ctx)
remember(ARGV[ARG.delete.request], request.now, result .. ':' .. ctx.emitted .. ':' .. ctx.halted)
return { result, ctx.emitted, ctx.halted }
