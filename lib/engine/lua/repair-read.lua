#!lua flags=no-writes
--[[ repair-read: a batch of the queue's records for engine.repair to index
  anew: the engine reads their time labels (due times, ticks, lease ends)
  and repair-write indexes them.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the repair_read list of lib/engine/lua/arguments.ts

  Returns  { cursor, id, record, id, record, ... }  cursor '0': the last batch
  Errors   none
]]
local cursor, count = ARGV[ARG.repair_read.cursor], tonumber(ARGV[ARG.repair_read.count])
local reply = redis.call('HSCAN', K['tasks'], cursor, 'COUNT', count)
local answer = { reply[1] }
for _, value in ipairs(reply[2]) do answer[#answer + 1] = value end
return answer
