#!lua flags=no-writes
--[[ acl-check: which of the given commands the current user may not run, by
  redis.acl_check_cmd (Redis 7): doctor()'s ACL check when the user may not
  run ACL DRYRUN itself, which is an admin command. Reads nothing.

  KEYS     the queue's `tasks` key (not touched: it routes the call on a cluster)
  ARGV     the acl_check list of lib/engine/lua/arguments.ts

  Returns  the 1-based positions in probes of the calls the user may not run
  Errors   Redis's own, for a command the server does not know
]]
local probes = cjson.decode(ARGV[ARG.acl_check.probes])
local denied = {}
for index = 1, #probes do
  if not redis.acl_check_cmd(unpack(probes[index])) then denied[#denied + 1] = index end
end
return denied
