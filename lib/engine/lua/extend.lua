#!lua flags=allow-oom
--[[ extend: renew the lease of a task the caller owns (docs/semantics.md §3.7).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the extend list of lib/engine/lua/arguments.ts

  Returns  1
  Errors   TASK_NOT_FOUND, TASK_OUTDATED (checked before any write)
]]
--- @include "task"
--- @include "owners"
--- @include "reindex"
--- @include "finish"

local id = ARGV[ARG.extend.id]
local stored = load_task(id)
if stored == nil then
  return redis.error_reply(E_TASK_NOT_FOUND .. ' extend: task ' .. id .. ' is not in the queue')
end
local worker, token = ARGV[ARG.extend.worker], ARGV[ARG.extend.token]
local outdated = outdated_copy('extend', id, stored, worker ~= '' and worker or nil, token ~= '' and token or nil)
if outdated ~= nil then return outdated end

local renewed = with_core(stored, copy_map(stored.core))
renewed.core[LABEL_EXPIRY] = ARGV[ARG.extend.expiry]
local ctx = new_context(tonumber(ARGV[ARG.extend.now_ms]))
ctx.expiry_ms = ARGV[ARG.extend.expiry_ms] -- a score for Redis: no need to read it as a number
store_task(id, renewed)
reindex(id, stored, renewed, ctx)
finish(ctx)
return 1
