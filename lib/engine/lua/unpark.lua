#!lua flags=allow-oom
--[[ unpark: take slots of a worker off the queue's idle list, so that no
  wake-up goes to them (a worker that stops).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the unpark list of lib/engine/lua/arguments.ts
           then the slots, one argument each

  Returns  1
  Errors   none
]]
--- @include "parking"

-- the slots follow the unpark list
local worker = ARGV[ARG.unpark.worker]
for index = #ARG.unpark + 1, #ARGV do parking().unpark(worker .. '\0' .. ARGV[index]) end
return 1
