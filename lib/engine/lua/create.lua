#!lua
--[[ create: store a new task (semantics 3.1).

  KEYS     every key of the queue, in the order of lib/engine/keys.ts
  ARGV[1]  now_ms      the engine's clock, ms since the epoch
  ARGV[2]  task        JSON of the validated task: node defaulted, a template's
                       ticks set, core without the object id
  ARGV[3]  due_ms      when an @exact task becomes due, or ''
  ARGV[4]  tick_p1_ms  a cron template's tick+1, or ''
  ARGV[5]  check_ms    when a template's tick-1 may need maintenance, or ''
  ARGV[6]  layout      the layout version the engine writes
  ARGV[7]  request     the idempotent request (include/request.lua)

  Returns  the new object id (the same id again for the same request)
  Errors   TASK_LIMIT when the task is a leaf with a root of patterns and the
           queue has as many such roots as it checks (before any write)
]]
--- @include "task"
--- @include "request"
--- @include "has"
--- @include "roots"
--- @include "index"

local now = tonumber(ARGV[1])
local kept = replayed(ARGV[7])
if kept ~= nil then return kept end
local task = decode_task(ARGV[2])
local ctx = new_context(now)
ctx.due_ms = tonumber(ARGV[3])
ctx.tick_p1_ms = tonumber(ARGV[4])

-- a leaf with a root of patterns no group has yet: only so many such roots
-- are checked against every task stored (include/roots.lua)
if shape_of(task).leaf and not roots().room_for(task.root) then
  return redis.error_reply(E_TASK_LIMIT .. ' create: the queue has ' .. WILD_ROOTS_MOST
    .. ' roots with patterns already; a new one is refused')
end

redis.call('SET', K['layout'], ARGV[6], 'NX')
local id = new_id(now)
task.core = task.core or {}
task.core[LABEL_OBJECT] = id
store_task(id, task)
reindex(id, nil, task, ctx)
if ARGV[5] ~= '' then redis.call('ZADD', K['ticker-check'], ARGV[5], id) end
finish(ctx)
remember(ARGV[7], now, id)
return id
