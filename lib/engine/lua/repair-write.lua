#!lua
--[[ repair-write: index records anew (engine.repair, lib/engine/repair.ts).
  Each record is indexed from scratch, whatever indexes it has, unless it
  changed since repair-read gave it out: the operation that changed it
  indexed it already. A record that is not a task is left to expire's sweep.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the repair_write list of lib/engine/lua/arguments.ts
           entries: JSON array of [id, record, due ms, tick+1 ms, lease end ms]:
             due ms     an @exact or deferred task's due time ('' : none;
                        0 for an unreadable one: due at once)
             tick+1 ms  a cron template's tick+1 ('-inf': missing or unreadable)
             lease end  an owned task's lease end (0: missing or unreadable)

  Returns  how many records it indexed
  Errors   none
]]
--- @include "task"
--- @include "owners"
--- @include "orphans"
--- @include "reindex"
--- @include "finish"

local now = tonumber(ARGV[ARG.repair_write.now_ms])
local ctx = new_context(now)
ctx.quiet = true -- indexing anew is no event
local indexed = 0
for _, entry in ipairs(cjson.decode(ARGV[ARG.repair_write.entries])) do
  local id, record = entry[1], entry[2]
  local task = redis.call('HGET', K['tasks'], id) == record and decode_scanned(id, record) or nil
  if task ~= nil then
    orphans().forget(id, ctx)
    ctx.due_ms = tonumber(entry[3])
    ctx.tick_p1_ms = entry[4] == '-inf' and -math.huge or tonumber(entry[4])
    ctx.expiry_ms = entry[5]
    reindex(id, nil, task, ctx)
    if is_cron_template(task) then redis.call('ZADD', K['ticker-check'], '-inf', id) end
    indexed = indexed + 1
  end
end
ctx.due_ms, ctx.tick_p1_ms, ctx.expiry_ms = nil, nil, nil
finish(ctx)
return indexed
