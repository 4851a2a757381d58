#!lua flags=allow-oom
--[[ release: give back a task the caller owns without working on it, so that
  another worker can claim it at once (the worker runtime does this with a
  task none of its handlers accepts). Unlike a revocation it counts no cycle.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV[1]  now_ms
  ARGV[2]  id       the copy's object id
  ARGV[3]  worker   the caller's worker id
  ARGV[4]  token    the copy's fencing token, or '' (then the worker id alone
                    decides): a later claim of the task is not released
  ARGV[5]  state    optional: 'failed' when a handler ran and was cut short (a
                    worker that stops): the attempt is kept as fail.lua keeps
                    one, so `run`'s withdraw knows the task was claimed
  ARGV[6]  fields   with state: JSON object of the attempt (fail.lua)
  ARGV[7]  hold     optional: until when (ms) context.rateLimit holds the
                    task's rate-limited values (the whole queue when no keyed
                    limit applies): no claim of them before (docs/semantics.md §3.16)

  Returns  1 when released, 0 when the task is gone, owned by someone else or
           under another claim
  Errors   none
]]
--- @include "features"
--- @include "task"
--- @include "owners"
--- @include "attempt-log"
--- @include "caps"
--- @include "reindex"
--- @include "finish"

local id = ARGV[2]
local stored = load_task(id)
if stored == nil or owner_of(stored) ~= ARGV[3] then return 0 end
if ARGV[4] ~= '' and stored.core[LABEL_TOKEN] ~= ARGV[4] then return 0 end
local released = with_core(stored, copy_map(stored.core))
released.core[LABEL_WORKER] = nil
released.core[LABEL_EXPIRY] = nil
released.core[LABEL_TOKEN] = nil
local ctx = new_context(tonumber(ARGV[1]))
if ARGV[7] ~= nil and ARGV[7] ~= '' then caps().rate_hold(stored, tonumber(ARGV[7]), tonumber(ARGV[1])) end
store_task(id, released)
reindex(id, stored, released, ctx)
if ARGV[5] ~= nil and ARGV[5] ~= '' then
  redis.call('HSET', K['attempts'], id, ARGV[5] .. '|' .. ARGV[1] .. '|' .. ARGV[6])
  log_failed(id, ARGV[5], ARGV[4], ARGV[6], tonumber(ARGV[1]))
  use_feature('attempts')
end
finish(ctx)
return 1
