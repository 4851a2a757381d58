--[[ search: deliver a broadcast task, or claim the oldest task this worker may
  take (semantics 3.2).

  KEYS     every key of the queue
  ARGV[1]  now_ms
  ARGV[2]  worker       this engine's worker id
  ARGV[3]  expiry       formatTime(now + expiry): the lease end of a claim
  ARGV[4]  expiry_ms    the same in ms
  ARGV[5]  filter       JSON of the filter, or ''
  ARGV[6]  floor        broadcast ids up to this one are done for this engine
  ARGV[7]  done         JSON array of later broadcast ids this engine completed
  ARGV[8]  leased       JSON array of broadcast ids under this engine's local lease

  Returns  { kind, task JSON, floor, next due ms }
           kind 'broadcast' (nothing written), 'task' (claimed) or 'none';
           floor: the last id of the run of done broadcast ids after ARGV[6];
           next due: the earliest due time of a waiting task, or ''
  Errors   none
]]
--- @include "task"
--- @include "has"
--- @include "index"
--- @include "order"

local now = tonumber(ARGV[1])
local worker = ARGV[2]
local filter = nil
if ARGV[5] ~= '' then filter = decode_task(ARGV[5]) end

local function set_of(json)
  local set = {}
  for _, id in ipairs(cjson.decode(json)) do set[id] = true end
  return set
end

local function next_due()
  local first = redis.call('ZRANGE', K['waiting'], 0, 0, 'WITHSCORES')
  return first[2] or ''
end

-- Phase 1: the oldest broadcast task this engine has not completed and does
-- not hold a local lease on. Writes nothing.
local function find_broadcast()
  local done = set_of(ARGV[7])
  local leased = set_of(ARGV[8])
  local floor = ARGV[6]
  local contiguous = true
  local from = '(' .. floor
  while true do
    local ids = redis.call('ZRANGEBYLEX', K['broadcast'], from, '+', 'LIMIT', 0, 100)
    for _, id in ipairs(ids) do
      if done[id] then
        if contiguous then floor = id end
      else
        contiguous = false
        if not leased[id] then
          local json = redis.call('HGET', K['tasks'], id)
          local task = decode_task(json)
          if task ~= nil and (filter == nil or matches(task, filter)) then return json, floor end
        end
      end
    end
    if #ids < 100 then return nil, floor end
    from = '(' .. ids[#ids]
  end
end

local broadcast, floor = find_broadcast()
if broadcast ~= nil then return { 'broadcast', broadcast, floor, '' } end

local ctx = new_context(now)
ctx.expiry_ms = tonumber(ARGV[4])

-- Phase 2a: exact and deferred tasks that became due join their ready pool.
for _, id in ipairs(redis.call('ZRANGEBYSCORE', K['waiting'], '-inf', now)) do
  redis.call('ZREM', K['waiting'], id)
  local task = load_task(id)
  if task == nil then
    redis.call('HDEL', K['due'], id)
  else
    local pool, member = pool_of(id, task, math.huge, 0)
    if pool ~= nil then redis.call('ZADD', K[pool], 0, member) end
  end
end

-- Phase 2b: leaves whose root some other task's meta has are deleted, judged
-- against the queue as this step found it.
local obsolete = {}
local entries = redis.call('HGETALL', K['obsolete'])
for index = 1, #entries, 2 do
  local leaf_id, witness = entries[index], entries[index + 1]
  local leaf = load_task(leaf_id)
  local confirmed = false
  if leaf ~= nil and is_active_leaf(leaf) then
    if witness ~= '?' and witness ~= leaf_id then
      local other = load_task(witness)
      confirmed = other ~= nil and has(other.meta, leaf.root)
    end
    if not confirmed then
      witness = find_witness(leaf_id, leaf)
      confirmed = witness ~= nil
      if confirmed then redis.call('HSET', K['obsolete'], leaf_id, witness) end
    end
  end
  if confirmed then
    obsolete[#obsolete + 1] = { leaf_id, leaf }
  else
    redis.call('HDEL', K['obsolete'], leaf_id)
  end
end
for _, pair in ipairs(obsolete) do remove_task(pair[1], pair[2], ctx) end

-- Phase 3: the balancing share gate.
local candidates = redis.call('ZCARD', K['ready']) + redis.call('ZCARD', K['ready-cron'])
  + redis.call('ZCARD', K['ready-uni']) + redis.call('ZCARD', K['leases'])
if candidates == 0 then
  publish_wakes(ctx)
  return { 'none', '', floor, next_due() }
end
local owned = redis.call('HGETALL', K['owners'])
local own = 0
local workers = 1 -- this worker
local before = 0 -- workers that sort before this one
for index = 1, #owned, 2 do
  local other, count = owned[index], tonumber(owned[index + 1])
  if other == worker then
    own = count
  elseif count >= 1 then
    workers = workers + 1
    if js_less(other, worker) then before = before + 1 end
  end
end
local share = math.floor(candidates / workers)
if before < candidates % workers then share = share + 1 end
if share - own <= 0 then
  publish_wakes(ctx)
  return { 'none', '', floor, next_due() }
end

-- Phase 4: the oldest unicast task for this worker, else the oldest `any` task.
local function accepts(id)
  local task = load_task(id)
  if task == nil then return nil end
  if filter ~= nil and not matches(task, filter) then return nil end
  return task
end

local picked_id, picked = nil, nil
local function try(id)
  local task = accepts(id)
  if task ~= nil then
    picked_id, picked = id, task
    return true
  end
  return false
end
each_under(K['ready-uni'], worker, try)
if picked == nil then each_merged(K['ready'], K['ready-cron'], try) end
if picked == nil then
  publish_wakes(ctx)
  return { 'none', '', floor, next_due() }
end

-- Phase 5: claim it.
local claimed = with_core(picked, copy_map(picked.core))
claimed.core[LABEL_WORKER] = worker
claimed.core[LABEL_EXPIRY] = ARGV[3]
store_task(picked_id, claimed)
reindex(picked_id, picked, claimed, ctx)
publish_wakes(ctx)
return { 'task', encode_task(claimed), floor, next_due() }
