#!lua
--[[ create: store a new task (docs/semantics.md §3.1).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV[1]  now_ms      the engine's clock, ms since the epoch

  The general form:
  ARGV[2]  task        JSON of the validated task: node defaulted, a template's
                       ticks set, core without the object id
  ARGV[3]  due_ms      when an @exact task becomes due, or ''
  ARGV[4]  tick_p1_ms  a cron template's tick+1, or ''
  ARGV[5]  check_ms    when a template's tick-1 may need maintenance, or ''
  ARGV[6]  layout      the layout version the engine writes
  ARGV[7]  request     the idempotent request (include/request.lua)
  ARGV[8]  after       the id of the task whose completion releases this one, or ''
                       (a task that completed, its outcome kept: released at once)
  ARGV[9]  unique      `<mode>\0<ttl ms>` for a task whose core names a unique key
                       (mode skip or replace; include/unique.lua), or ''

  The lean form, for a plain task (include/create.lua; the general path
  takes it over when the queue's features say so, in the same call):
  ARGV[2]  ''
  ARGV[3]  record      the task in the stored form (lib/task/codec.ts encodeStored)
  ARGV[4]  request key     `<instance>:<slot>` of the idempotent request
  ARGV[5]  request number  its number
  ARGV[6]  layout      the layout version the engine writes when the queue has
                       none, or '': the engine knows it is written

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

local now = tonumber(ARGV[1])

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
  if unique_mode ~= nil then
    -- a replaced holder is indexed with this create's due time (debounce)
    ctx.due_ms, ctx.tick_p1_ms = due_ms, tick_p1_ms
    taken = unique_create(unique_mode, unique_ttl, task, ctx)
    ctx.due_ms, ctx.tick_p1_ms = nil, nil
  end
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

if ARGV[2] == '' then
  local key, number = ARGV[4], ARGV[5]
  local kept = kept_answer(redis.call('HGET', K['requests'], key), number)
  if kept ~= nil then return kept end
  if plain_for_create() then
    if ARGV[6] ~= '' then redis.call('SET', K['layout'], ARGV[6], 'NX') end
    local id = lean_store(now, ARGV[3])
    redis.call('HSET', K['requests'], key, number .. '|' .. ARGV[1] .. '|' .. id)
    return id
  end
  return create_general(decode_new(ARGV[3]), '', nil, '', ARGV[6], key .. ':' .. number, '', '')
end

local kept = replayed(ARGV[7])
if kept ~= nil then return kept end
return create_general(decode_task(ARGV[2]), ARGV[3], tonumber(ARGV[4]), ARGV[5], ARGV[6], ARGV[7], ARGV[8] or '',
  ARGV[9] or '')
