#!lua
--[[ repair-start: the first step of rebuilding a queue's indexes from its
  records (engine.repair, lib/engine/repair.ts): every index goes (UNLINK
  frees them off the main thread), and the queue takes this engine's layout.
  The `features` hash is made anew from the keys kept (include/features.lua).
  The next steps (repair-read, repair-write) index every record anew.

  Kept: the records (tasks), the counters (sequence, claims), the kept
  answers of idempotent writes (requests, requests-sweep), the filters the
  queue knows (filters, filter-seen; their pools go and are made anew), the
  sweep cursor, the events stream (tail's history), the outcomes (and outcome-large) and failed
  attempts (attempts, attempt-log), the held tasks (held, followers, held-sweep), the unique keys
  (unique, unique-expiry: who holds each, and until when), the names of
  schedules (schedules), whether the queue is paused (paused) and which queries are
  (paused-queries: the tasks set aside go with `aside`, and rejoin as repair indexes
  them, aside again where a query or a lane says so), the rate limits and their
  windows (rates, rate-windows, rate-expiry), the declared
  caps (caps: their counts are made anew with the owned tasks), when halted
  tasks halted (halted-since: reindex adds the missing ones, expire drops those
  whose task is not halted), and the meta keys engines declared (meta-indexes), which jobs
  list anew (include/roots.lua). spec/engine/repair.spec.ts checks that this
  list and the one below name every key of lib/engine/keys.ts. It also drops
  the keys earlier layouts wrote that this one does not (retiredKeyNames).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the repair_start list of lib/engine/lua/arguments.ts

  Returns  1
  Errors   none
]]
--- @include "features"
--- @include "roots"

redis.call('UNLINK', K['ready'], K['ready-cron'], K['ready-uni'], K['ready-prio'], K['targets'], K['waiting'], K['promoted'],
  K['due'], K['leases'], K['owners'], K['owner-order'], K['owned'], K['broadcast'], K['halted'],
  K['retention'], K['templates'], K['ticker-check'], K['children'], K['gates'], K['gate-templates'],
  K['watched'], K['meta-tasks'], K['roots'], K['root-leaves'], K['root-anchors'], K['wild-roots'],
  K['witnesses'], K['obsolete-groups'], K['root-jobs'], K['filter-pools'], K['ready-filtered'],
  K['parked'], K['parked-slots'], K['parked-workers'], K['cap-counts'], K['cap-holders'], K['features'],
  K['aside'], K['aside-of'], K['lane-ready'], K['aside-refill'])
-- the keys of earlier layouts (`holders` before layout 4: `owned` is made anew)
local retired = cjson.decode(ARGV[ARG.repair_start.retired])
if #retired > 0 then redis.call('UNLINK', unpack(retired)) end
redis.call('SET', K['layout'], ARGV[ARG.repair_start.layout])
-- the fields of the keys kept (filters, attempts, followers, events)
rebuild_features()
-- as many keys as engines' metaIndexes options named (at most 64 each)
for _, key in ipairs(redis.call('HKEYS', K['meta-indexes'])) do roots().declare(key) end
return 1
