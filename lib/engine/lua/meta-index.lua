#!lua
--[[ meta-index: lists a queue's tasks by the meta keys an engine's
  metaIndexes option names (include/roots.lua declare), so that exists and
  lister read only the tasks under an exact value of one (scan.lua). A key
  named for the first time is listed by a job among the queue's root jobs;
  each call runs the jobs for at most JOB_MOST records (or 3/4 of the
  stepTime), and the engine calls again until every key it names is listed.
  Searches and expire run the jobs too.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the meta_index list of lib/engine/lua/arguments.ts

  Returns  1 when every key named is listed, 0 while a job still lists one
  Errors   none
]]
--- @include "step"
--- @include "roots"

step_spent() -- the clock starts here: the jobs below are all the call does
local keys = cjson.decode(ARGV[ARG.meta_index.keys])
for _, key in ipairs(keys) do roots().declare(key) end
-- three quarters of the stepTime: at 1M a listed record costs ~22 µs and its
-- time varies (a random insert), so a step ends well before 5 ms on a busy host
roots().work(JOB_MOST, 0.75)
for _, flag in ipairs(redis.call('HMGET', K['watched'], unpack(keys))) do
  if flag ~= '1' then return 0 end
end
return 1
