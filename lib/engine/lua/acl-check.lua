#!lua flags=no-writes
--[[ acl-check: which of the given commands the current user may not run, by
  redis.acl_check_cmd (Redis 7): doctor()'s ACL check when the user may not
  run ACL DRYRUN itself, which is an admin command. Reads nothing.

  KEYS     the queue's `tasks` key (not touched: it routes the call on a cluster)
  ARGV[1]  probes      JSON array of calls, each an array: command name, then its arguments

  Returns  the 1-based positions in ARGV[1] of the calls the user may not run
  Errors   Redis's own, for a command the server does not know
]]
local probes = cjson.decode(ARGV[1])
local denied = {}
for index = 1, #probes do
  if not redis.acl_check_cmd(unpack(probes[index])) then denied[#denied + 1] = index end
end
return denied
