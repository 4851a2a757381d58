#!lua flags=no-writes
--[[ repair-read: a batch of the queue's records for engine.repair to index
  anew: the engine reads their time labels (due times, ticks, lease ends)
  and repair-write indexes them.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV[1]  cursor   HSCAN cursor of the tasks hash, '0' to start
  ARGV[2]  count    about how many records

  Returns  { cursor, id, record, id, record, ... }  cursor '0': the last batch
  Errors   none
]]
local reply = redis.call('HSCAN', K['tasks'], ARGV[1], 'COUNT', tonumber(ARGV[2]))
local answer = { reply[1] }
for _, value in ipairs(reply[2]) do answer[#answer + 1] = value end
return answer
