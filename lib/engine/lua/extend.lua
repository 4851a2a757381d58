#!lua flags=allow-oom
--[[ extend: renew the lease of a task the caller owns (docs/semantics.md §3.7).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV[1]  now_ms
  ARGV[2]  id          the copy's object id
  ARGV[3]  worker      the copy's core worker, or ''
  ARGV[4]  expiry      formatTime(now + expiry), the new lease end
  ARGV[5]  expiry_ms   the same in ms
  ARGV[6]  token       the copy's core fencing token, or ''

  Returns  1
  Errors   TASK_NOT_FOUND, TASK_OUTDATED (checked before any write)
]]
--- @include "task"
--- @include "owners"
--- @include "reindex"
--- @include "finish"

local id = ARGV[2]
local stored = load_task(id)
if stored == nil then
  return redis.error_reply(E_TASK_NOT_FOUND .. ' extend: task ' .. id .. ' is not in the queue')
end
local outdated = outdated_copy('extend', id, stored, ARGV[3] ~= '' and ARGV[3] or nil, ARGV[6] ~= '' and ARGV[6] or nil)
if outdated ~= nil then return outdated end

local renewed = with_core(stored, copy_map(stored.core))
renewed.core[LABEL_EXPIRY] = ARGV[4]
local ctx = new_context(tonumber(ARGV[1]))
ctx.expiry_ms = ARGV[5] -- a score for Redis: no need to read it as a number
store_task(id, renewed)
reindex(id, stored, renewed, ctx)
finish(ctx)
return 1
