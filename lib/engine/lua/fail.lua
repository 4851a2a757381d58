#!lua
--[[ fail: record how an attempt at a task failed: its handler rejected, or
  ran past its timeout. The task stays owned until its lease ends, as it did
  before: expire then offers it again, one cycle more, and when that halts it
  (the circuit breaker) its outcome is this attempt's (include/outcome.lua).
  An attempt by a copy that is not of the current claim records nothing.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV[1]  now_ms
  ARGV[2]  id        the copy's object id
  ARGV[3]  worker    the copy's core worker
  ARGV[4]  token     the copy's core fencing token, or ''
  ARGV[5]  state     'failed' or 'timeout'
  ARGV[6]  fields    JSON object of the attempt: worker, error, startedAt, log
  ARGV[7]  request   the idempotent request (include/request.lua)

  Returns  1 when recorded, 0 when the task is gone or the copy is not of its claim
  Errors   none
]]
--- @include "features"
--- @include "task"
--- @include "request"
--- @include "attempt-log"

local kept = replayed(ARGV[7])
if kept ~= nil then return tonumber(kept) end
local id = ARGV[2]
local stored = load_task(id)
if stored == nil then return 0 end
local token = ARGV[4] ~= '' and ARGV[4] or nil
if outdated_copy('fail', id, stored, ARGV[3] ~= '' and ARGV[3] or nil, token) ~= nil then return 0 end
redis.call('HSET', K['attempts'], id, ARGV[5] .. '|' .. ARGV[1] .. '|' .. ARGV[6])
log_failed(id, ARGV[5], ARGV[4], ARGV[6], tonumber(ARGV[1]))
use_feature('attempts')
remember(ARGV[7], tonumber(ARGV[1]), '1')
return 1
