#!lua
--[[ create-many: store a chunk of new tasks in one call (engine.createMany,
  docs/semantics.md §3.1 for each task; lib/engine/create-many.ts).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the create_many list of lib/engine/lua/arguments.ts, then a
           create_many_task list a task:
             kind 'l': task in the stored form (lib/task/codec.ts encodeStored),
                for a plain task (include/create.lua), the rest '';
             kind 'g': task, due_ms, tick_p1_ms, check_ms as create.lua takes
                them, for any other;
             kind 'u<mode>\0<ttl ms>' instead of 'g' for a task whose core names a
                unique key (create.lua's unique; include/unique.lua): created,
                skipped or replaced as a create of it would be, after the tasks
                before it

  A chunk of plain tasks only takes the lean path when the queue's features
  allow it; any other chunk stores every task through reindex as create
  does (a task of the general path may make a feature, roots or watched
  meta keys, that changes what a later plain task's create writes), in the
  same call, with one finish (one wake-up message) for the chunk.

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
local kept = kept_answer(redis.call('HGET', K['requests'], key), number)
if kept ~= nil then return kept end

-- each task's create_many_task follows ARGV[base]
local FIRST, TASK_ARGUMENTS = #ARG.create_many, #ARG.create_many_task
local count = (#ARGV - FIRST) / TASK_ARGUMENTS
-- a task of the general path may make a feature (a leaf: roots, watched
-- meta keys) that changes what the next plain task's create writes: a chunk
-- with one stores all its tasks through the general path
local plain = true
for index = 1, count do
  if ARGV[FIRST + (index - 1) * TASK_ARGUMENTS + ARG.create_many_task.kind] ~= 'l' then plain = false break end
end
-- a queue with parked slots: the lean store too, then a slot woken a task
local waking = false
if plain and not plain_for_create() then
  waking = plain_but_parked()
  plain = waking
end
-- the tasks the general path stores, decoded, and the checks of create.lua
-- before any write
local general = {}
local made = { count = 0 }
for index = 1, count do
  local base = FIRST + (index - 1) * TASK_ARGUMENTS
  local lean, json = ARGV[base + ARG.create_many_task.kind] == 'l', ARGV[base + ARG.create_many_task.task]
  if not lean or not plain then
    local task = not lean and decode_task(json) or decode_new(json)
    if shape_of(task).leaf and not wild_room(task.root, made) then
      return redis.error_reply(E_TASK_LIMIT .. ' createMany: task ' .. (index - 1) .. ': the queue has '
        .. WILD_ROOTS_MOST .. ' roots with patterns already; a new one is refused')
    end
    general[index] = task
  end
end

local layout = ARGV[ARG.create_many.layout]
if layout ~= '' then redis.call('SET', K['layout'], layout, 'NX') end
local ctx = nil
local ids = {}
for index = 1, count do
  local base = FIRST + (index - 1) * TASK_ARGUMENTS
  local task = general[index]
  if task == nil then
    ids[index] = lean_store(now, ARGV[base + ARG.create_many_task.task])
  else
    ctx = ctx or new_context(now)
    local due_ms = tonumber(ARGV[base + ARG.create_many_task.due_ms])
    local tick_p1_ms = tonumber(ARGV[base + ARG.create_many_task.tick_p1_ms])
    -- a unique key held: skipped or its holder replaced, as create.lua does
    local unique_mode, unique_ttl = string.match(ARGV[base + ARG.create_many_task.kind], '^u(%a+)%z(%d+)$')
    local taken = nil
    if unique_mode ~= nil then
      ctx.due_ms, ctx.tick_p1_ms = due_ms, tick_p1_ms
      taken = unique_create(unique_mode, unique_ttl, task, ctx)
      ctx.due_ms, ctx.tick_p1_ms = nil, nil
    end
    if taken ~= nil then
      ids[index] = taken
    else
      ids[index] = general_store(now, task, due_ms, tick_p1_ms, ARGV[base + ARG.create_many_task.check_ms], ctx)
      if unique_mode ~= nil then ids[index] = unique_hold(task, ids[index], unique_ttl) end
    end
  end
end
if ctx ~= nil then finish(ctx) end
if waking then wake_new(now, count) end
local answer = table.concat(ids, ',')
redis.call('HSET', K['requests'], key, number .. '|' .. ARGV[ARG.create_many.now_ms] .. '|' .. answer)
return answer
