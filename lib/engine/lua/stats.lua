#!lua flags=no-writes
--[[ stats: the queue's counts by state for engine.stats(), read from the
  indexes (ZCARD, ZCOUNT, HLEN: each O(1) or O(log N)) and the heads of the
  ready pools; never a walk of the queue.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the stats list of lib/engine/lua/arguments.ts
           owners: a small hash answers whole; sample: the oldest `any` ones
           and the first `uni` ones

  Returns  JSON { tasks, claimable, owned, waiting, due, halted, cron, gate,
           broadcast, held, oldest (an id, or false), owner_count, owners (flat
           worker, count, ...), checked, unmatched (ids of the checked
           tasks no live worker's labels match, oldest first), caps (flat key,
           concurrency, ... of `caps`), cap_owned (the owned tasks the
           whole-queue cap counts: ZCARD owned), cap_fields (HLEN cap-counts), cap_counts (flat
           field, count, ... of at most `flow` of them), rates (flat key,
           '<limit>:<window ms>', ... of `rates`), open_windows (how many
           windows reopen after now), windows (flat field, '<reopen
           ms>:<claims>', ... of at most `flow` of them, the first to reopen
           first) }
  Errors   none
]]
--- @include "task"
--- @include "has"

local now = tonumber(ARGV[ARG.stats.now_ms])
local owner_budget = tonumber(ARGV[ARG.stats.owners])
local target_budget = tonumber(ARGV[ARG.stats.targets])

-- the oldest claimable task: ids sort by creation, so it is the least of the
-- heads of `ready` and `ready-cron`, of the head under each target worker
-- in `ready-uni` (`<target>\0<id>`, one jump per target, at most target_budget)
local oldest = nil
local function consider(id)
  if id ~= nil and (oldest == nil or bytes_less(id, oldest)) then oldest = id end
end
consider(redis.call('ZRANGE', K['ready'], 0, 0)[1])
consider(redis.call('ZRANGE', K['ready-cron'], 0, 0)[1])
-- and the head of each priority in `ready-prio` (`<priority tag><id>`, one
-- jump per priority, at most target_budget)
local from = '-'
for _ = 1, target_budget do
  local member = redis.call('ZRANGEBYLEX', K['ready-prio'], from, '+', 'LIMIT', 0, 1)[1]
  if member == nil then break end
  consider(string.sub(member, -26))
  from = '(' .. string.sub(member, 1, -27) .. '\255'
end
from = '-'
for _ = 1, target_budget do
  local member = redis.call('ZRANGEBYLEX', K['ready-uni'], from, '+', 'LIMIT', 0, 1)[1]
  if member == nil then break end
  consider(string.sub(member, -26))
  from = '(' .. string.sub(member, 1, -28) .. '\0\255'
end

-- nobody can take this: the claimable tasks checked against the live
-- workers' search filters (by labels only: a handler's filter function is
-- not known here). A unicast task only its target worker can take.
local sample_most = tonumber(ARGV[ARG.stats.sample])
local any_worker, all_filters, by_worker = false, {}, {}
for _, live in ipairs(cjson.decode(ARGV[ARG.stats.workers])) do
  local entry = { any = live.a == true, filters = {} }
  for _, json in ipairs(type(live.f) == 'table' and live.f or {}) do
    local filter = decode_task(json)
    if filter ~= nil then
      entry.filters[#entry.filters + 1] = filter
      all_filters[#all_filters + 1] = filter
    end
  end
  any_worker = any_worker or entry.any
  by_worker[live.w] = entry
end
local function takes(any, filters, task)
  if any then return true end
  for _, filter in ipairs(filters) do
    if matches(task, filter) then return true end
  end
  return false
end

local function head(key, count)
  if count < 1 then return {} end
  return redis.call('ZRANGE', key, 0, count - 1)
end
local unicast = head(K['ready-uni'], math.floor(sample_most / 4))
local rest = sample_most - #unicast
local plain = head(K['ready'], rest)
local cron = head(K['ready-cron'], rest)
local sample, targets = {}, {}
-- the tasks of the highest priorities first, as a search takes them
for _, member in ipairs(head(K['ready-prio'], math.floor(rest / 2))) do sample[#sample + 1] = string.sub(member, -26) end
local p, c = 1, 1
while #sample < rest and (plain[p] or cron[c]) do
  if cron[c] == nil or (plain[p] ~= nil and bytes_less(plain[p], cron[c])) then
    sample[#sample + 1], p = plain[p], p + 1
  else
    sample[#sample + 1], c = cron[c], c + 1
  end
end
for _, member in ipairs(unicast) do
  sample[#sample + 1] = string.sub(member, -26)
  targets[#sample] = string.sub(member, 1, -28)
end
local unmatched = {}
if #sample > 0 then
  local records = redis.call('HMGET', K['tasks'], unpack(sample))
  for index, id in ipairs(sample) do
    local task = records[index] and decode_stored(id, records[index]) or nil
    local target = targets[index]
    local taken
    if task == nil then
      taken = true -- not a task: not counted
    elseif target ~= nil then
      local entry = by_worker[target]
      taken = entry ~= nil and takes(entry.any, entry.filters, task)
    else
      taken = takes(any_worker, all_filters, task)
    end
    if not taken then unmatched[#unmatched + 1] = id end
  end
end
table.sort(unmatched, bytes_less)

local owners = redis.call('HSCAN', K['owners'], '0', 'COUNT', owner_budget)[2]

-- flow control (docs/semantics.md §3.15, §3.16): the declared caps and rate
-- limits (small hashes, which a claim reads whole too); at most flow_budget
-- fields of `cap-counts` (one field a capped value with owned tasks) and of
-- the windows still open (`rate-expiry` orders them by reopen), with how many
-- there are: never a walk of every owned task or every value
local flow_budget = tonumber(ARGV[ARG.stats.flow])
local caps = redis.call('HGETALL', K['caps'])
local cap_fields, cap_counts = 0, {}
if #caps > 0 then
  cap_fields = redis.call('HLEN', K['cap-counts'])
  local cursor = '0'
  repeat
    local reply = redis.call('HSCAN', K['cap-counts'], cursor, 'COUNT', 100)
    cursor = reply[1]
    for index = 1, #reply[2], 2 do
      local read = #cap_counts
      if read < 2 * flow_budget then
        cap_counts[read + 1] = reply[2][index]
        cap_counts[read + 2] = reply[2][index + 1]
      end
    end
  until cursor == '0' or #cap_counts >= 2 * flow_budget
end
-- open windows, and the holds of context.rateLimit (which outlive a removed limit)
local open_windows = redis.call('ZCOUNT', K['rate-expiry'], '(' .. now, '+inf')
local windows = {}
if open_windows > 0 then
  local fields = redis.call('ZRANGEBYSCORE', K['rate-expiry'], '(' .. now, '+inf', 'LIMIT', 0, flow_budget)
  local stored = redis.call('HMGET', K['rate-windows'], unpack(fields))
  for index, field in ipairs(fields) do
    if stored[index] then
      local read = #windows
      windows[read + 1] = field
      windows[read + 2] = stored[index]
    end
  end
end

-- the paused queries (at most 32), each with when and how many tasks wait aside under it
local paused_queries = {}
local paused_flat = redis.call('HGETALL', K['paused-queries'])
for index = 1, #paused_flat, 2 do
  local since, json = string.match(paused_flat[index + 1], '^(%d*)%z(.*)$')
  local prefix = '\0' .. paused_flat[index] .. '\0'
  paused_queries[#paused_queries + 1] = { since or '0', json or '{}',
    redis.call('ZLEXCOUNT', K['aside'], '[' .. prefix, '[' .. prefix .. '\255') }
end

return cjson.encode({
  tasks = redis.call('HLEN', K['tasks']),
  claimable = redis.call('ZCARD', K['ready']) + redis.call('ZCARD', K['ready-cron'])
    + redis.call('ZCARD', K['ready-uni']) + redis.call('ZCARD', K['ready-prio']) + redis.call('ZCARD', K['aside']),
  owned = redis.call('ZCARD', K['leases']),
  waiting = redis.call('ZCARD', K['waiting']),
  due = redis.call('ZCOUNT', K['waiting'], '-inf', now),
  halted = redis.call('ZCARD', K['halted']),
  cron = redis.call('ZCARD', K['templates']),
  gate = redis.call('ZCARD', K['gate-templates']),
  broadcast = redis.call('ZCARD', K['broadcast']),
  held = redis.call('HLEN', K['held']),
  paused = redis.call('GET', K['paused']) or false,
  paused_queries = paused_queries,
  oldest = oldest or false,
  owner_count = redis.call('HLEN', K['owners']),
  owners = owners,
  checked = #sample,
  unmatched = unmatched,
  caps = caps,
  cap_owned = #caps > 0 and redis.call('ZCARD', K['owned']) or 0,
  cap_fields = cap_fields,
  cap_counts = cap_counts,
  rates = redis.call('HGETALL', K['rates']),
  open_windows = open_windows,
  windows = windows,
})
