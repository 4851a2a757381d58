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
  ARGV[1]  now_ms
  ARGV[2]  id        the copy's object id
  ARGV[3]  worker    the copy's core worker
  ARGV[4]  token     the copy's core fencing token, or ''
  ARGV[5]  fields    JSON object of the attempt: worker, error, startedAt, log
  ARGV[6]  due_ms    when it may run again, ms ('' or <= now: at once)
  ARGV[7]  due       formatTime of due_ms, the task's core retry-at ('' with no due_ms)
  ARGV[8]  cancel    the breaker to set: a count N (the lower of it and the
                     stored one), 'now' (halt now: the new cycle count), or '' (keep)
  ARGV[9]  retention how long the outcome of a task this halts is kept, ms (0: not kept)
  ARGV[10] most      how many outcomes the queue keeps at most
  ARGV[11] request   the idempotent request (include/request.lua)

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

local kept = replayed(ARGV[11])
if kept ~= nil then return tonumber(kept) end
local now = tonumber(ARGV[1])
local id = ARGV[2]
local stored = load_task(id)
if stored == nil then return 0 end
local token = ARGV[4] ~= '' and ARGV[4] or nil
if outdated_copy('retry', id, stored, ARGV[3] ~= '' and ARGV[3] or nil, token) ~= nil then return 0 end
redis.call('HSET', K['attempts'], id, 'failed|' .. ARGV[1] .. '|' .. ARGV[5])
log_failed(id, 'failed', ARGV[4], ARGV[5], now)
use_feature('attempts')

local freed = with_core(stored, copy_map(stored.core))
local cycles = cycles_of(stored) + 1
freed.core[LABEL_WORKER] = nil
freed.core[LABEL_EXPIRY] = nil
freed.core[LABEL_TOKEN] = nil
freed.core[LABEL_CYCLES] = format_count(cycles)
local limit = ARGV[8] == 'now' and cycles or tonumber(ARGV[8])
if limit ~= nil then
  local cancel = read_count(stored.core[LABEL_CANCEL] or '')
  if cancel == nil or cancel < 1 or limit < cancel then freed.core[LABEL_CANCEL] = format_count(limit) end
end
local due_ms = tonumber(ARGV[6])
local ctx = new_context(now)
if due_ms ~= nil and due_ms > now then
  freed.core[LABEL_RETRY_AT] = ARGV[7]
  ctx.due_ms = due_ms
else
  freed.core[LABEL_RETRY_AT] = nil
end
store_task(id, freed)
reindex(id, stored, freed, ctx)
local result = 1
if is_halted(freed) then
  halted_outcome(id, freed, now, tonumber(ARGV[9]), tonumber(ARGV[10]))
  result = 2
end
finish(ctx)
remember(ARGV[11], now, tostring(result))
return result
