#!lua flags=allow-oom
--[[ unpark: take slots of a worker off the queue's idle list, so that no
  wake-up goes to them (a worker that stops).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV[1]  now_ms
  ARGV[2]  worker
  ARGV[3..] the slots

  Returns  1
  Errors   none
]]
--- @include "parking"

for index = 3, #ARGV do parking().unpark(ARGV[2] .. '\0' .. ARGV[index]) end
return 1
