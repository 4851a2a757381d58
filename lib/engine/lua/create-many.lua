#!lua
--[[ create-many: store a chunk of new tasks in one call (engine.createMany,
  docs/semantics.md §3.1 for each task; lib/engine/create-many.ts).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the create_many list of lib/engine/lua/arguments.ts, then, by its
           form:
           'l' (a chunk of plain tasks, include/create.lua): a
             create_many_plain list a task, its record in the stored form
             (lib/task/codec.ts encodeStored);
           'g': a create_many_task list a task:
             kind 'l': task in the stored form, for a plain task, the rest '';
             kind 'g': task, due_ms, tick_p1_ms, check_ms as create.lua takes
                them, for any other;
             kind 'u<mode>\0<ttl ms>' instead of 'g' for a task whose core names a
                unique key (create.lua's unique; include/unique.lua): created,
                skipped or replaced as a create of it would be, after the tasks
                before it

  The lean form takes the lean store when the queue's features allow it: one
  INCRBY, HSET and ZADD for the chunk. Any other chunk stores every task
  through reindex as create does (a task of the general path may make a
  feature, roots or watched meta keys, that changes what a later plain
  task's create writes), in the same call, with one finish (one wake-up
  message) for the chunk.

  Returns  the new object ids, joined by ',' in the order of the tasks (the
           same again for the same request); a unique task's is
           'created <id>', 'skipped <id>' or 'replaced <id>'
  Errors   TASK_LIMIT naming the task's index (from 0) when a leaf with a root of
           patterns would make a group beyond the queue's cap of such roots
           (before any write: the chunk is stored whole or not at all)
]]
--- @include "task"
--- @include "owners"
--- @include "unique"
--- @include "create"
--- @include "finish"

local now = tonumber(ARGV[ARG.create_many.now_ms])
local key, number = ARGV[ARG.create_many.request_key], ARGV[ARG.create_many.request_number]
local form = ARGV[ARG.create_many.form]
-- `form` is prefixed with `r` when the request may have run already
-- (lib/engine/run.ts runRequest): only such a send can find its answer kept,
-- a request id is never taken twice (lib/engine/requests.ts)
if string.byte(form) == 114 then -- 'r'
  form = string.sub(form, 2)
  local kept = kept_answer(redis.call('HGET', K['requests'], key), number)
  if kept ~= nil then return kept end
end

-- each task's list follows ARGV[FIRST]
local FIRST = #ARG.create_many
local lean = form == 'l'
local TASK_ARGUMENTS = lean and #ARG.create_many_plain or #ARG.create_many_task
local count = (#ARGV - FIRST) / TASK_ARGUMENTS
local layout = ARGV[ARG.create_many.layout]

if lean then
  -- a queue with parked slots: the lean store too, then a slot woken a task
  local plain = plain_for_create()
  if plain or plain_but_parked() then
    if layout ~= '' then redis.call('SET', K['layout'], layout, 'NX') end
    local answer = lean_store_many(now, FIRST, count)
    if not plain then wake_new(now, count) end
    redis.call('HSET', K['requests'], key, number .. '|' .. ARGV[ARG.create_many.now_ms] .. '|' .. answer)
    return answer
  end
end

-- task_arguments: the nth task's kind, task, due_ms, tick_p1_ms and
-- check_ms, in either form
local function task_arguments(index)
  local base = FIRST + (index - 1) * TASK_ARGUMENTS
  if lean then return 'l', ARGV[base + ARG.create_many_plain.record], '', '', '' end
  return ARGV[base + ARG.create_many_task.kind], ARGV[base + ARG.create_many_task.task],
    ARGV[base + ARG.create_many_task.due_ms], ARGV[base + ARG.create_many_task.tick_p1_ms],
    ARGV[base + ARG.create_many_task.check_ms]
end

-- the tasks decoded, and the checks of create.lua before any write
local general = {}
local made = { count = 0 }
for index = 1, count do
  local kind, json = task_arguments(index)
  local task = kind == 'l' and decode_new(json) or decode_task(json)
  if shape_of(task).leaf and not wild_room(task.root, made) then
    return redis.error_reply(E_TASK_LIMIT .. ' createMany: task ' .. (index - 1) .. ': the queue has '
      .. WILD_ROOTS_MOST .. ' roots with patterns already; a new one is refused')
  end
  general[index] = task
end

if layout ~= '' then redis.call('SET', K['layout'], layout, 'NX') end
local ctx = new_context(now)
local ids = {}
for index = 1, count do
  local kind, _, due_text, tick_text, check_ms = task_arguments(index)
  local task = general[index]
  local due_ms, tick_p1_ms = tonumber(due_text), tonumber(tick_text)
  -- a unique key held: skipped or its holder replaced, as create.lua does
  local unique_mode, unique_ttl = string.match(kind, '^u(%a+)%z(%d+)$')
  local taken = nil
  if unique_mode ~= nil then taken = unique_create(unique_mode, unique_ttl, task, ctx, due_ms, tick_p1_ms) end
  if taken ~= nil then
    ids[index] = taken
  else
    ids[index] = general_store(now, task, due_ms, tick_p1_ms, check_ms, ctx)
    if unique_mode ~= nil then ids[index] = unique_hold(task, ids[index], unique_ttl) end
  end
end
finish(ctx)
local answer = table.concat(ids, ',')
redis.call('HSET', K['requests'], key, number .. '|' .. ARGV[ARG.create_many.now_ms] .. '|' .. answer)
return answer
