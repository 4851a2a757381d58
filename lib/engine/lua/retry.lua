#!lua flags=allow-oom
--[[ retry: give back a task whose handler failed, at once, in one step with
  the record of the failed attempt (as fail.lua keeps it): no owner, one
  cycle more, due again at `due_ms` (it waits in `waiting`, as a deferred
  task does), and its circuit breaker lowered to `cancel` when given. When
  the breaker holds it then (cycles >= cancel), it halts as a revocation
  halts it: its outcome is this attempt's (include/outcome.lua). The worker
  calls it only for a failure under a retry policy or an UnrecoverableError;
  other failures wait for their lease (fail.lua).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the retry list of lib/engine/lua/arguments.ts

  Returns  2 when given back and halted, 1 when given back to run again,
           0 when the task is gone or the copy is not of its claim
  Errors   none
]]
--- @include "features"
--- @include "task"
--- @include "request"
--- @include "owners"
--- @include "outcome"
--- @include "attempt-log"
--- @include "reindex"
--- @include "finish"

local kept = replayed(ARGV[ARG.retry.request])
if kept ~= nil then return tonumber(kept) end
local now = tonumber(ARGV[ARG.retry.now_ms])
local id = ARGV[ARG.retry.id]
local stored = load_task(id)
if stored == nil then return 0 end
local token = ARGV[ARG.retry.token] ~= '' and ARGV[ARG.retry.token] or nil
local worker = ARGV[ARG.retry.worker]
if outdated_copy('retry', id, stored, worker ~= '' and worker or nil, token) ~= nil then return 0 end
redis.call('HSET', K['attempts'], id, 'failed|' .. ARGV[ARG.retry.now_ms] .. '|' .. ARGV[ARG.retry.fields])
log_failed(id, 'failed', ARGV[ARG.retry.token], ARGV[ARG.retry.fields], now)
use_feature('attempts')

local freed = with_core(stored, copy_map(stored.core))
local cycles = cycles_of(stored) + 1
freed.core[LABEL_WORKER] = nil
freed.core[LABEL_EXPIRY] = nil
freed.core[LABEL_TOKEN] = nil
freed.core[LABEL_CYCLES] = format_count(cycles)
local limit = ARGV[ARG.retry.cancel] == 'now' and cycles or tonumber(ARGV[ARG.retry.cancel])
if limit ~= nil then
  local cancel = read_count(stored.core[LABEL_CANCEL] or '')
  if cancel == nil or cancel < 1 or limit < cancel then freed.core[LABEL_CANCEL] = format_count(limit) end
end
local due_ms = tonumber(ARGV[ARG.retry.due_ms])
local ctx = new_context(now)
if due_ms ~= nil and due_ms > now then
  freed.core[LABEL_RETRY_AT] = ARGV[ARG.retry.due]
  ctx.due_ms = due_ms
else
  freed.core[LABEL_RETRY_AT] = nil
end
store_task(id, freed)
reindex(id, stored, freed, ctx)
local result = 1
if is_halted(freed) then
  halted_outcome(id, freed, now, tonumber(ARGV[ARG.retry.retention]), tonumber(ARGV[ARG.retry.most]))
  result = 2
end
finish(ctx)
remember(ARGV[ARG.retry.request], now, tostring(result))
return result
