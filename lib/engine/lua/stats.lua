#!lua flags=no-writes
--[[ stats: the queue's counts by state for engine.stats(), read from the
  indexes (ZCARD, ZCOUNT, HLEN: each O(1) or O(log N)) and the heads of the
  ready pools; never a walk of the queue.

  KEYS     every key of the queue
  ARGV[1]  now       the engine's clock, ms
  ARGV[2]  owners    about how many owners to name (HSCAN COUNT of `owners`;
                     a small hash answers whole)
  ARGV[3]  targets   how many target workers of `ready-uni` to look at for the
                     oldest claimable task

  Returns  JSON { tasks, claimable, owned, waiting, due, halted, cron, gate,
           broadcast, oldest (an id, or false), owner_count, owners (flat
           worker, count, ...) }
  Errors   none
]]
--- @include "task"

local now = tonumber(ARGV[1])
local owner_budget = tonumber(ARGV[2])
local target_budget = tonumber(ARGV[3])

-- the oldest claimable task: ids sort by creation, so it is the least of the
-- heads of `ready` and `ready-cron`, and of the head under each target worker
-- in `ready-uni` (`<target>\0<id>`, one jump per target, at most target_budget)
local oldest = nil
local function consider(id)
  if id ~= nil and (oldest == nil or bytes_less(id, oldest)) then oldest = id end
end
consider(redis.call('ZRANGE', K['ready'], 0, 0)[1])
consider(redis.call('ZRANGE', K['ready-cron'], 0, 0)[1])
local from = '-'
for _ = 1, target_budget do
  local member = redis.call('ZRANGEBYLEX', K['ready-uni'], from, '+', 'LIMIT', 0, 1)[1]
  if member == nil then break end
  consider(string.sub(member, -26))
  from = '(' .. string.sub(member, 1, -28) .. '\0\255'
end

local owners = redis.call('HSCAN', K['owners'], '0', 'COUNT', owner_budget)[2]

return cjson.encode({
  tasks = redis.call('HLEN', K['tasks']),
  claimable = redis.call('ZCARD', K['ready']) + redis.call('ZCARD', K['ready-cron'])
    + redis.call('ZCARD', K['ready-uni']),
  owned = redis.call('ZCARD', K['leases']),
  waiting = redis.call('ZCARD', K['waiting']),
  due = redis.call('ZCOUNT', K['waiting'], '-inf', now),
  halted = redis.call('ZCARD', K['halted']),
  cron = redis.call('ZCARD', K['templates']),
  gate = redis.call('ZCARD', K['gate-templates']),
  broadcast = redis.call('ZCARD', K['broadcast']),
  oldest = oldest or false,
  owner_count = redis.call('HLEN', K['owners']),
  owners = owners,
})
