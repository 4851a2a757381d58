#!lua flags=allow-oom
--[[ cycles: reset the circuit breaker of a task (docs/semantics.md §3.8): remove its
  worker, expiry and cycles labels. No ownership check. Records the event
  `reset` (with the former owner, if any).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the cycles list of lib/engine/lua/arguments.ts
           request: a reset sent again after its reply was lost must not undo
           a claim made in between

  Returns  1
  Errors   TASK_NOT_FOUND
]]
--- @include "task"
--- @include "request"
--- @include "owners"
--- @include "reindex"
--- @include "finish"

local kept = replayed(ARGV[ARG.cycles.request])
if kept ~= nil then return tonumber(kept) end
local id = ARGV[ARG.cycles.id]
local stored = load_task(id)
if stored == nil then
  return redis.error_reply(E_TASK_NOT_FOUND .. ' cycles: task ' .. id .. ' is not in the queue')
end

local reset = with_core(stored, copy_map(stored.core))
reset.core[LABEL_WORKER] = nil
reset.core[LABEL_EXPIRY] = nil
reset.core[LABEL_TOKEN] = nil
reset.core[LABEL_CYCLES] = nil
local ctx = new_context(tonumber(ARGV[ARG.cycles.now_ms]))
store_task(id, reset)
-- one event, `reset`, whoever owned it: a halted or unowned task changes no
-- owner, so reindex would note nothing (the reset operators use)
ctx.quiet = true
reindex(id, stored, reset, ctx)
ctx.quiet = nil
ctx.events[#ctx.events + 1] = { 'reset', id, owner_of(stored) or '' }
finish(ctx)
remember(ARGV[ARG.cycles.request], ctx.now, '1')
return 1
