-- plain: the worker runtime's common step, done without the general index
-- machinery: complete a plain task it owns, and claim the head of `ready`.
-- It writes what reindex (include/reindex.lua) would, for the one shape of
-- task it handles.
--- @include "features"
--- @include "task"
--- @include "owners"
--- @include "owned"
--- @include "outcome"
--- @include "search-request"
--
-- A plain task is an `any` task without cron, gate or root that the circuit
-- breaker does not hold: its only entries are `ready` while unowned, and
-- `leases` and `owned` while owned. Each function below first
-- checks that the task and the queue are plain (no followers, no roots or
-- listed meta keys, no pooled filters, nothing due, no broadcast or unicast
-- work) and answers nil, having written nothing, when they are not: the
-- caller then runs delete() or search(), which handle everything. Either way
-- the queue ends in the same state (conformance/delete/delete-search.spec.ts
-- compares every key).

-- plain_delete: delete() for a plain task the copy owns; nil when not plain
local function plain_delete(request, ctx)
  if request.requeue or request.bypass or request.gate ~= nil or request.children ~= nil
    or (request.root_id ~= nil and request.sync ~= nil) then
    return nil
  end
  local id = request.id
  local stored = load_task(id)
  if stored == nil or stored.cron ~= nil or stored.gate ~= nil or stored.root ~= nil
    or method_of(stored) ~= METHOD_ANY or is_halted(stored) or stored.core[LABEL_UNIQUE] ~= nil then
    return nil -- (a unique task gives its key back in remove_task)
  end
  local owner = owner_of(stored)
  if owner == nil then return nil end
  if not request.bypass and outdated_copy('delete', id, stored, request.worker, request.token) ~= nil then
    return nil -- delete() answers the error
  end
  if ctx.followers == nil or ctx.rooted == nil then
    -- one call for both: delete() asks each when either is there
    -- (and a task holding a cap slot: the general delete gives it back)
    if redis.call('EXISTS', K['followers'], K['roots'], K['watched'], K['cap-holders']) > 0 then return nil end
    ctx.followers, ctx.rooted = false, false
  end
  if ctx.followers or ctx.rooted then return nil end

  -- reindex(id, stored, nil): out of `leases` and `owned`
  ctx.events[#ctx.events + 1] = { 'completed', id, owner }
  redis.call('ZREM', K['leases'], id)
  if ctx.plain_candidates ~= nil then ctx.plain_candidates = ctx.plain_candidates - 1 end
  local member, holder = owned_holder(id)
  if holder then
    count_owner(holder, -1, ctx)
    redis.call('ZREM', K['owned'], member)
  end
  -- remove_task: its waiters hear of the outcome below
  redis.call('HDEL', K['tasks'], id)
  -- failed attempts are rare: one look per script tells whether there are any
  -- (nothing in this script adds one)
  if ctx.attempts == nil then ctx.attempts = redis.call('EXISTS', K['attempts'], K['attempt-log']) > 0 end
  if ctx.attempts then redis.call('HDEL', K['attempts'], id) redis.call('HDEL', K['attempt-log'], id) end
  record_outcome(id, 'completed', stored, request.outcome, nil, request.now, request.retention,
    request.outcome_most)
  return 1
end

-- ctx.parked: which of the slots of the script's entries were parked when it
-- began (see read_parked); only an entry's own search parks or unparks its slot
local function read_parked(slot_keys, ctx)
  if #slot_keys < 2 then return end
  local parked = {}
  for index, value in ipairs(redis.call('HMGET', K['parked-slots'], unpack(slot_keys))) do
    if value then parked[slot_keys[index]] = true end
  end
  ctx.parked = parked
end

-- read_plain: one look for what the plain path checks key by key otherwise:
-- when none of these keys exists, the queue is plain, has no followers, no
-- roots or listed meta keys and no failed attempts (delete() and search() ask
-- again when they run), and nobody tails its events (no script makes the
-- stream: finish need not try to add to it)
local function read_plain(ctx)
  if plain_queue('followers', 'roots', 'watched', 'attempts', 'broadcast', 'waiting', 'obsolete-groups', 'promoted',
    'root-jobs', 'ready-cron', 'ready-uni', 'ready-prio', 'filter-pools', 'events', 'paused', 'caps', 'cap-holders',
    'rates', 'rate-windows', 'paused-queries', 'aside-of') then
    ctx.followers, ctx.rooted, ctx.attempts, ctx.plain_queue, ctx.untailed = false, false, false, true, true
  end
end

-- plain_search: search() when the queue is plain and the head of `ready` is
-- a plain task this worker may take; its answer as a list, or nil
local function plain_search(request, ctx)
  if #request.filters > 0 or next(request.exclude) ~= nil or request.resume ~= '' then return nil end
  if request.slot ~= '' then
    local slot_key = request.worker .. '\0' .. request.slot
    local parked = ctx.parked
    if parked == nil then
      parked = redis.call('HEXISTS', K['parked-slots'], slot_key) == 1
    else
      parked = parked[slot_key] ~= nil
    end
    if parked then return nil end
  end
  -- nothing due, obsolete, broadcast, unicast, pooled or paused: kept for the script's
  -- next plain search (the plain path adds none of them; the caller forgets it
  -- when the general path ran)
  if ctx.plain_queue == nil then
    -- priorities, a pause and caps: read_plain read `features` and cleared their
    -- fields if their keys are gone, so the fields say it without a command
    local used = features()
    ctx.plain_queue = not used['ready-prio'] and not used['paused'] and not used['caps'] and not used['rates']
      and not used['rate-windows'] and not used['paused-queries'] and not used['aside-of']
      and redis.call('EXISTS', K['broadcast'],
      K['waiting'], K['obsolete-groups'], K['promoted'], K['root-jobs'], K['ready-cron'], K['ready-uni'],
      K['filter-pools']) == 0
  end
  if not ctx.plain_queue then return nil end
  local worker = request.worker
  -- the share gate, as search's phase 3 with no cron, unicast or due tasks
  local own, workers, before = share_inputs(worker, request.self_key, ctx)
  if workers > 1 then
    -- a plain claim moves a task from `ready` to `leases`, a plain delete takes
    -- one from `leases`: the count read once is kept up to date (the caller
    -- forgets it when the general path ran)
    if ctx.plain_candidates == nil then
      ctx.plain_candidates = redis.call('ZCARD', K['ready']) + redis.call('ZCARD', K['leases'])
    end
    local candidates = ctx.plain_candidates
    local share = math.floor(candidates / workers)
    if before < candidates % workers then share = share + 1 end
    if candidates <= 0 or share - own <= 0 then return nil end
  end
  local id = redis.call('ZRANGE', K['ready'], 0, 0)[1]
  if id == nil then return nil end
  local task = load_task(id)
  if task == nil or task.cron ~= nil or task.gate ~= nil or task.root ~= nil or method_of(task) ~= METHOD_ANY
    or is_halted(task) or owner_of(task) ~= nil then
    return nil
  end

  -- Phase 5 as search() claims, and reindex(id, task, claimed): from `ready`
  -- to `leases` and `owned`
  local core = copy_map(task.core) or {}
  core[LABEL_WORKER] = worker
  core[LABEL_EXPIRY] = request.expiry
  core[LABEL_TOKEN] = string.format('%d', redis.call('INCR', K['claims']))
  task.core = core
  ctx.claimed = id .. ':' .. core[LABEL_TOKEN]
  ctx.expiry_ms = request.expiry_ms
  local record = encode_stored(task)
  redis.call('HSET', K['tasks'], id, record)
  ctx.events[#ctx.events + 1] = { 'claimed', id, worker }
  redis.call('ZREM', K['ready'], id)
  redis.call('ZADD', K['leases'], request.expiry_ms, id)
  count_owner(worker, 1, ctx)
  -- a string: Redis turns a number into one with printf
  redis.call('ZADD', K['owned'], '0', owned_entry(id, request.now_text, worker))
  tell_claim(id, worker)
  return { answer('task', id, record, request.floor .. ':' .. request.base) }
end
