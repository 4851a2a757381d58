--[[ search: deliver a broadcast task, or claim the oldest task this worker may
  take (semantics 3.2).

  KEYS     every key of the queue
  ARGV[1]  now_ms
  ARGV[2]  worker       this engine's worker id
  ARGV[3]  expiry       formatTime(now + expiry): the lease end of a claim
  ARGV[4]  expiry_ms    the same in ms
  ARGV[5]  filter       JSON of the filter, or ''
  ARGV[6]  floor        broadcast tasks stored up to this sequence number are done
                        for this engine, or were created before it started
  ARGV[7]  done         JSON array of later broadcast ids this engine completed
  ARGV[8]  leased       JSON array of broadcast ids under this engine's local lease
  ARGV[9]  start_ms     the engine's start instant: older broadcast tasks are not for it

  Returns  { kind, task JSON, floor, next due ms }
           kind 'broadcast' (nothing written), 'task' (claimed) or 'none';
           floor: the sequence number up to which every broadcast task is done
           for this engine or predates it;
           next due: the earliest due time of a waiting task, or '' (with 'none')
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

-- Phase 1: the oldest broadcast task created after this engine started that
-- it has not completed and holds no local lease on. Writes nothing. The index
-- is in store order; the floor skips the run of tasks this engine is done with.
local function find_broadcast()
  local done = set_of(ARGV[7])
  local leased = set_of(ARGV[8])
  local start_ms = tonumber(ARGV[9])
  local floor = tonumber(ARGV[6])
  local contiguous = true
  local best_id, best_json = nil, nil
  local from = '(' .. floor
  while true do
    local page = redis.call('ZRANGEBYSCORE', K['broadcast'], from, '+inf', 'WITHSCORES', 'LIMIT', 0, 100)
    for index = 1, #page, 2 do
      local id, sequence = page[index], page[index + 1]
      if done[id] or creation_ms(id) <= start_ms then
        if contiguous then floor = tonumber(sequence) end
      else
        contiguous = false
        if not leased[id] and (best_id == nil or bytes_less(id, best_id)) then
          local json = redis.call('HGET', K['tasks'], id)
          local task = decode_task(json)
          if task ~= nil and (filter == nil or matches(task, filter)) then best_id, best_json = id, json end
        end
      end
    end
    if #page < 200 then return best_json, floor end
    from = '(' .. page[#page]
  end
end

local broadcast, floor = find_broadcast()
floor = string.format('%d', floor)
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
    if pool ~= nil then
      redis.call('ZADD', K[pool], 0, member)
      redis.call('ZADD', K['promoted'], stored_due(id), id)
    end
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
-- A search whose clock is behind an earlier one does not count (or pick)
-- exact and deferred tasks that are due only by the other's clock.
local candidates = redis.call('ZCARD', K['ready']) + redis.call('ZCARD', K['ready-cron'])
  + redis.call('ZCARD', K['ready-uni']) + redis.call('ZCARD', K['leases'])
  - redis.call('ZCOUNT', K['promoted'], '(' .. now, '+inf')
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
  if is_timed(task) and tonumber(redis.call('ZSCORE', K['promoted'], id) or '0') > now then return nil end
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
