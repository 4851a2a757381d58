#!lua
--[[ ticker-due: the cron templates ticker must look at (docs/semantics.md §3.9):
  those due (tick+1 <= now) and those whose tick-1 may need maintenance.
  Entries whose record is gone or is not a template any more are dropped
  from both indexes.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the ticker_due list of lib/engine/lua/arguments.ts

  Returns  { id, @every, tick+1 label, id, @every, tick+1 label, ... }
  Errors   none
]]
--- @include "task"
--- @include "owners"
--- @include "orphans"
--- @include "finish"

local now = tonumber(ARGV[ARG.ticker_due.now_ms])
local limit = tonumber(ARGV[ARG.ticker_due.limit])
local ctx = new_context(now)
local reply = {}
local seen = {}
local function add(id)
  if seen[id] then return end
  seen[id] = true
  local task = load_task(id)
  if task ~= nil and is_cron_template(task) then
    reply[#reply + 1] = id
    reply[#reply + 1] = task.cron[LABEL_EVERY]
    reply[#reply + 1] = task.cron[LABEL_TICK_P1] or ''
  elseif task == nil then
    orphans().forget(id, ctx) -- a record something else changed (docs/semantics.md §1.10)
  else
    redis.call('ZREM', K['templates'], id)
    redis.call('ZREM', K['ticker-check'], id)
  end
end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', K['templates'], '-inf', now, 'LIMIT', 0, limit)) do add(id) end
for _, id in ipairs(redis.call('ZRANGEBYSCORE', K['ticker-check'], '-inf', '(' .. now, 'LIMIT', 0, limit)) do add(id) end
finish(ctx)
return reply
