#!lua
--[[ create: store a new task (docs/semantics.md §3.1).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the create list of lib/engine/lua/arguments.ts (the general form), or
           the create_lean list, for a plain task (include/create.lua; the
           general path takes it over when the queue's features say so, in the
           same call); the lean form has '' where the general one has its task.
           after: a task that completed, its outcome kept, releases this one at
           once; unique: mode skip or replace (include/unique.lua)

  Returns  the new object id (the same id again for the same request); with
           unique: 'created <id>', 'skipped <id>' or 'replaced <id>'
  Errors   TASK_LIMIT when the task is a leaf with a root of patterns and the
           queue has as many such roots as it checks, or `after` names a task
           that holds as many tasks as it may; TASK_NOT_FOUND when `after`
           names a task that is not in the queue and did not complete;
           TASK_CRON / TASK_GATE when `after` names a cron / gate template
           (it never completes) (all before any write)
]]
--- @include "features"
--- @include "task"
--- @include "request"
--- @include "owners"
--- @include "roots"
--- @include "outcome"
--- @include "unique"
--- @include "create"
--- @include "finish"

local now = tonumber(ARGV[ARG.create.now_ms])

-- create_general: the general path, from the checks to the answer kept
local function create_general(task, due_text, tick_p1_ms, check_ms, layout, request, after, unique)
  local due_ms = tonumber(due_text)
  -- a leaf with a root of patterns no group has yet: only so many such roots
  -- are checked against every task stored (include/roots.lua)
  if shape_of(task).leaf and not roots().room_for(task.root) then
    return redis.error_reply(E_TASK_LIMIT .. ' create: the queue has ' .. WILD_ROOTS_MOST
      .. ' roots with patterns already; a new one is refused')
  end

  local predecessor = after ~= '' and load_task(after) or nil
  -- a template never completes: a task held after one would be held for ever
  if predecessor ~= nil and is_cron_template(predecessor) then
    return redis.error_reply(E_TASK_CRON .. ' create: task ' .. after
      .. ' (after) is a cron template, which never completes')
  end
  if predecessor ~= nil and is_gate_template(predecessor) then
    return redis.error_reply(E_TASK_GATE .. ' create: task ' .. after
      .. ' (after) is a gate template, which never completes')
  end
  if after ~= '' and predecessor == nil then
    local outcome = redis.call('HGET', K['outcomes'], after)
    if not outcome or not string.find(outcome, '"state":"completed"', 1, true) then
      return redis.error_reply(E_TASK_NOT_FOUND .. ' create: task ' .. after
        .. ' (after) is not in the queue and did not complete')
    end
    after = '' -- it completed: nothing to wait for
  end
  if after ~= '' and #followers_of(after) >= FOLLOWERS_MOST then
    return redis.error_reply(E_TASK_LIMIT .. ' create: task ' .. after .. ' holds ' .. FOLLOWERS_MOST
      .. ' tasks created after it already')
  end

  -- a unique key another task holds: skipped or that task replaced (include/unique.lua)
  local unique_mode, unique_ttl = string.match(unique, '^(%a+)%z(%d+)$')
  local ctx = new_context(now)
  local taken = nil
  if unique_mode ~= nil then taken = unique_create(unique_mode, unique_ttl, task, ctx, due_ms, tick_p1_ms) end
  if taken ~= nil then
    finish(ctx)
    remember(request, now, taken)
    return taken
  end

  if layout ~= '' then redis.call('SET', K['layout'], layout, 'NX') end
  if after ~= '' then
    -- held until `after` completes (include/outcome.lua release_followers)
    local id = new_id(now)
    task.core = task.core or {}
    task.core[LABEL_OBJECT] = id
    redis.call('HSET', K['held'], id, after .. '\0' .. due_text .. '\0' .. encode_stored(task))
    redis.call('ZADD', K['followers'], 0, after .. '\0' .. id)
    use_feature('followers')
    remember(request, now, id)
    return id
  end
  local id = general_store(now, task, due_ms, tick_p1_ms, check_ms, ctx)
  finish(ctx)
  local answer = unique_mode ~= nil and unique_hold(task, id, unique_ttl) or id
  remember(request, now, answer)
  return answer
end

-- the lean form (create_lean): '' where the general form has its task
if ARGV[ARG.create.task] == '' then
  local key, number = ARGV[ARG.create_lean.request_key], ARGV[ARG.create_lean.request_number]
  local layout, record = ARGV[ARG.create_lean.layout], ARGV[ARG.create_lean.record]
  -- `layout` is prefixed with `r` when the request may have run already
  -- (sent again by the engine or by ioredis: lib/engine/run.ts runRequest);
  -- only such a send can find its answer kept: a request id is never taken
  -- twice (lib/engine/requests.ts)
  if layout ~= '' and string.byte(layout) == 114 then -- 'r'
    layout = string.sub(layout, 2)
    local kept = kept_answer(redis.call('HGET', K['requests'], key), number)
    if kept ~= nil then return kept end
  end
  local plain = plain_for_create()
  if plain or plain_but_parked() then
    if layout ~= '' then redis.call('SET', K['layout'], layout, 'NX') end
    local id = lean_store(now, record)
    if not plain then wake_new(now, 1) end
    redis.call('HSET', K['requests'], key, number .. '|' .. ARGV[ARG.create_lean.now_ms] .. '|' .. id)
    return id
  end
  return create_general(decode_new(record), '', nil, '', layout, key .. ':' .. number, '', '')
end

local request = ARGV[ARG.create.request]
local kept = replayed(request)
if kept ~= nil then return kept end
return create_general(decode_task(ARGV[ARG.create.task]), ARGV[ARG.create.due_ms],
  tonumber(ARGV[ARG.create.tick_p1_ms]), ARGV[ARG.create.check_ms], ARGV[ARG.create.layout], request,
  ARGV[ARG.create.after] or '', ARGV[ARG.create.unique] or '')
