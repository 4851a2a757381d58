#!lua
--[[ create: store a new task (docs/semantics.md §3.1).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV[1]  now_ms      the engine's clock, ms since the epoch
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

  Returns  the new object id (the same id again for the same request); with
           unique: 'created <id>', 'skipped <id>' or 'replaced <id>'
  Errors   TASK_LIMIT when the task is a leaf with a root of patterns and the
           queue has as many such roots as it checks, or `after` names a task
           that holds as many tasks as it may; TASK_NOT_FOUND when `after`
           names a task that is not in the queue and did not complete;
           TASK_CRON / TASK_GATE when `after` names a cron / gate template
           (it never completes) (all before any write)
]]
--- @include "task"
--- @include "step"
--- @include "request"
--- @include "has"
--- @include "roots"
--- @include "owners"
--- @include "index"
--- @include "outcome"
--- @include "unique"

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

local after = ARGV[8] or ''
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

local unique_mode, unique_ttl = string.match(ARGV[9] or '', '^(%a+)%z(%d+)$')
local taken = unique_mode ~= nil and unique_create(unique_mode, unique_ttl, task, ctx) or nil
if taken ~= nil then
  finish(ctx)
  remember(ARGV[7], now, taken)
  return taken
end

redis.call('SET', K['layout'], ARGV[6], 'NX')
local id = new_id(now)
task.core = task.core or {}
task.core[LABEL_OBJECT] = id
if after ~= '' then
  -- held until `after` completes (include/outcome.lua release_followers)
  redis.call('HSET', K['held'], id, after .. '\0' .. ARGV[3] .. '\0' .. encode_stored(task))
  redis.call('ZADD', K['followers'], 0, after .. '\0' .. id)
  remember(ARGV[7], now, id)
  return id
end
store_task(id, task)
reindex(id, nil, task, ctx)
if ARGV[5] ~= '' then redis.call('ZADD', K['ticker-check'], ARGV[5], id) end
finish(ctx)
local answer = unique_mode ~= nil and unique_hold(task, id, unique_ttl) or id
remember(ARGV[7], now, answer)
return answer
