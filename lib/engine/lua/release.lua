#!lua flags=allow-oom
--[[ release: give back a task the caller owns without working on it, so that
  another worker can claim it at once (the worker runtime does this with a
  task none of its handlers accepts). Unlike a revocation it counts no cycle.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the release list of lib/engine/lua/arguments.ts
           state: a worker that stops cut the handler short; the attempt is
           kept as fail.lua keeps one, so `run`'s withdraw knows the task was
           claimed; hold: no claim of the held values before it (docs/semantics.md §3.16)

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

local id = ARGV[ARG.release.id]
local stored = load_task(id)
if stored == nil or owner_of(stored) ~= ARGV[ARG.release.worker] then return 0 end
if ARGV[ARG.release.token] ~= '' and stored.core[LABEL_TOKEN] ~= ARGV[ARG.release.token] then return 0 end
local released = with_core(stored, copy_map(stored.core))
released.core[LABEL_WORKER] = nil
released.core[LABEL_EXPIRY] = nil
released.core[LABEL_TOKEN] = nil
local now = tonumber(ARGV[ARG.release.now_ms])
local ctx = new_context(now)
local state, fields, hold = ARGV[ARG.release.state], ARGV[ARG.release.fields], ARGV[ARG.release.hold]
if hold ~= nil and hold ~= '' then caps().rate_hold(stored, tonumber(hold), now) end
store_task(id, released)
reindex(id, stored, released, ctx)
if state ~= nil and state ~= '' then
  redis.call('HSET', K['attempts'], id, state .. '|' .. ARGV[ARG.release.now_ms] .. '|' .. fields)
  log_failed(id, state, ARGV[ARG.release.token], fields, now)
  use_feature('attempts')
end
finish(ctx)
return 1
