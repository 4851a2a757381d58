#!lua flags=no-writes
--[[ status: what the queue knows of one task, read at one instant: its
  record, its outcome, when it was claimed, when it is due, its last failed
  attempt, its hold (engine.status, lib/engine/status.ts).

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the status list of lib/engine/lua/arguments.ts

  Returns  { record, outcome, claimed ms, due ms, attempt, held, attempt log }, '' for each
           the queue does not have
  Errors   none
]]
--- @include "owned"

local id = ARGV[ARG.status.id]
return {
  redis.call('HGET', K['tasks'], id) or '',
  redis.call('HGET', K['outcomes'], id) or '',
  owned_since(id) or '',
  redis.call('HGET', K['due'], id) or '',
  redis.call('HGET', K['attempts'], id) or '',
  redis.call('HGET', K['held'], id) or '',
  redis.call('HGET', K['attempt-log'], id) or '',
}
