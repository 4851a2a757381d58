#!lua flags=allow-oom
--[[ delete: complete a task, steps 2 to 7 of docs/semantics.md §3.3 (include/delete.lua).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV[1]  now_ms
  ARGV[2]  id          the copy's object id
  ARGV[3]  worker      the copy's core worker, or ''
  ARGV[4]  bypass      '1' when the copy's core bypass is 'true'
  ARGV[5]  requeue     '1' when the copy pages or defers (and has no gate, no root)
  ARGV[6]  defer_ok    '0' when the copy's @defer is not a duration (requeue only)
  ARGV[7]  requeued    JSON of the requeued maps {cron, meta, node, sync}, or ''
  ARGV[8]  due_ms      when the requeued task becomes due, or ''
  ARGV[9]  tick_p1_ms  tick+1 of a requeued cron template ('-inf': unreadable, overdue), or ''
  ARGV[10] gate        JSON of the copy's gate when it holds a trigger value, or ''
  ARGV[11] sync        JSON of the copy's sync when it is not empty, or ''
  ARGV[12] root_id     the copy's root object id, or ''
  ARGV[13] token       the copy's core fencing token, or ''
  ARGV[14] outcome     JSON object of the outcome's fields the engine adds (result, startedAt, log), or ''
  ARGV[15] retention   how long a deleted task's outcome is kept, ms (0: not kept)
  ARGV[16] most        how many outcomes the queue keeps at most
  ARGV[17] children    JSON array of the tasks its handler spawned, each
                       [task JSON, due ms, tick+1 ms, check ms] as create takes them, or ''
  ARGV[18] request     the idempotent request (include/request.lua)

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

local request = delete_request(1)
local kept = replayed(ARGV[18])
if kept ~= nil then
  local result, emitted, halted = string.match(kept, '^(%d+):(%d+):(%d+)$')
  return { tonumber(result), tonumber(emitted), tonumber(halted) }
end
local ctx = new_context(request.now)
ctx.op = 'delete'
local result = delete(request, ctx)
if type(result) == 'table' then return result end
finish(ctx)
remember(ARGV[18], request.now, result .. ':' .. ctx.emitted .. ':' .. ctx.halted)
return { result, ctx.emitted, ctx.halted }
