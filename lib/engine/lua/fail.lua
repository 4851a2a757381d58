#!lua
--[[ fail: record how an attempt at a task failed: its handler rejected, or
  ran past its timeout. The task stays owned until its lease ends, as it did
  before: expire then offers it again, one cycle more, and when that halts it
  (the circuit breaker) its outcome is this attempt's (include/outcome.lua).
  An attempt by a copy that is not of the current claim records nothing.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the fail list of lib/engine/lua/arguments.ts

  Returns  1 when recorded, 0 when the task is gone or the copy is not of its claim
  Errors   none
]]
--- @include "features"
--- @include "task"
--- @include "request"
--- @include "attempt-log"

local kept = replayed(ARGV[ARG.fail.request])
if kept ~= nil then return tonumber(kept) end
local id = ARGV[ARG.fail.id]
local stored = load_task(id)
if stored == nil then return 0 end
local token = ARGV[ARG.fail.token] ~= '' and ARGV[ARG.fail.token] or nil
local worker = ARGV[ARG.fail.worker]
if outdated_copy('fail', id, stored, worker ~= '' and worker or nil, token) ~= nil then return 0 end
local state, fields = ARGV[ARG.fail.state], ARGV[ARG.fail.fields]
redis.call('HSET', K['attempts'], id, state .. '|' .. ARGV[ARG.fail.now_ms] .. '|' .. fields)
log_failed(id, state, ARGV[ARG.fail.token], fields, tonumber(ARGV[ARG.fail.now_ms]))
use_feature('attempts')
remember(ARGV[ARG.fail.request], tonumber(ARGV[ARG.fail.now_ms]), '1')
return 1
