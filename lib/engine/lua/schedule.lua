#!lua flags=allow-oom
--[[ schedule: create or update the cron template of a name, or remove it
  (engine.schedule / engine.unschedule, docs/semantics.md §3.12). A name names
  at most one template: `schedules` maps it to the template's id, and the
  template's core carries it (Label.Schedule).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the schedule list of lib/engine/lua/arguments.ts

  Returns  'created <id>', 'updated <id>' or 'unchanged <id>'; for a removal
           'removed <id>' or 'none'. The same again for the same request.
  Errors   none
]]
--- @include "task"
--- @include "request"
--- @include "owners"
--- @include "reindex"
--- @include "remove-task"
--- @include "finish"

local now = tonumber(ARGV[ARG.schedule.now_ms])
local kept = replayed(ARGV[ARG.schedule.request])
if kept ~= nil then return kept end
local name = ARGV[ARG.schedule.name]
local ctx = new_context(now)

-- the template of the name, when it is still one (an operator may have removed it)
local id = redis.call('HGET', K['schedules'], name)
local current = id and load_task(id) or nil
if current ~= nil and not (is_cron_template(current) and current.core[LABEL_SCHEDULE] == name) then
  current = nil
end

local function same_content(a, b)
  for _, map in ipairs({ 'core', 'cron', 'gate', 'meta', 'node', 'root', 'sync' }) do
    if not same_map(a[map], b[map]) then return false end
  end
  return a.payload == b.payload
end

local answer
if ARGV[ARG.schedule.task] == '' then
  answer = 'none'
  if current ~= nil then
    remove_task(id, current, ctx)
    answer = 'removed ' .. id
  end
  redis.call('HDEL', K['schedules'], name)
else
  local task = decode_task(ARGV[ARG.schedule.task])
  if current == nil then
    redis.call('SET', K['layout'], ARGV[ARG.schedule.layout], 'NX')
    id = new_id(now)
    task.core[LABEL_OBJECT] = id
    ctx.tick_p1_ms = tonumber(ARGV[ARG.schedule.tick_p1_ms])
    store_task(id, task)
    reindex(id, nil, task, ctx)
    if ARGV[ARG.schedule.check_ms] ~= '' then redis.call('ZADD', K['ticker-check'], ARGV[ARG.schedule.check_ms], id) end
    redis.call('HSET', K['schedules'], name, id)
    answer = 'created ' .. id
  else
    -- the template keeps its id and core (cycles, trace; cancel, retry and
    -- priority are the new ones); the same interval keeps its ticks, another
    -- one starts from the new ticks
    local core = copy_map(current.core)
    core[LABEL_CANCEL], core[LABEL_RETRY] = task.core[LABEL_CANCEL], task.core[LABEL_RETRY]
    core[LABEL_PRIORITY] = task.core[LABEL_PRIORITY]
    task.core = core
    if current.cron[LABEL_EVERY] == task.cron[LABEL_EVERY] then
      task.cron = current.cron
    else
      ctx.tick_p1_ms = tonumber(ARGV[ARG.schedule.tick_p1_ms])
      if ARGV[ARG.schedule.check_ms] ~= '' then
        redis.call('ZADD', K['ticker-check'], ARGV[ARG.schedule.check_ms], id)
      else
        redis.call('ZREM', K['ticker-check'], id)
      end
    end
    if same_content(current, task) then
      answer = 'unchanged ' .. id
    else
      store_task(id, task)
      reindex(id, current, task, ctx)
      answer = 'updated ' .. id
    end
  end
end
finish(ctx)
remember(ARGV[ARG.schedule.request], now, answer)
return answer
