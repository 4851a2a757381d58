-- search: phases 1 to 5 of semantics 3.2 as one function. Needs the task,
-- has, index and walk includes.
--
-- request.now        the engine's clock, ms
-- request.worker     this engine's worker id
-- request.self_key   js_key(worker): where the worker sorts among the owners
-- request.expiry     formatTime(now + expiry): the lease end of a claim
-- request.expiry_ms  the same in ms (a string: it is a score for Redis)
-- request.filter     the decoded filter, or nil
-- request.floor      broadcast tasks stored up to this sequence number are done
--                    for this engine, or were created before it started
-- request.done       set of later broadcast ids this engine completed ('' in ARGV: none)
-- request.leased     set of broadcast ids under this engine's local lease ('' in ARGV: none)
-- request.start_ms   the engine's start instant
-- request.exclude    set of ids the caller does not want (a worker's declined tasks)
-- request.resume     where the pick resumes ('' from the start; 'u<member>' in
--                    this worker's unicast tasks; 'a<id>' in the `any` pools)
--
-- Returns kind ('broadcast', 'task', 'none' or 'more'), id, record (stored
-- form), floor (as a string), next due ms ('' unless 'none'), resume ('more':
-- the request.resume of the next step).
--
-- Bounded work: a search promotes at most PROMOTE_MOST due tasks and visits at
-- most WALK_MOST candidates. A search that could not decide within that
-- answers 'more', and the engine runs the next step: the same search, resumed.

local PROMOTE_MOST = 100
local WALK_MOST = 256

-- Phase 1: the oldest broadcast task created after this engine started that
-- it has not completed and holds no local lease on. Writes nothing. The index
-- is in store order; the floor skips the run this engine is done with.
local function find_broadcast(request)
  local floor = tonumber(request.floor)
  local start_ms = tonumber(request.start_ms)
  local contiguous = true
  local best_id, best_json = nil, nil
  local from = '(' .. floor
  while true do
    local page = redis.call('ZRANGEBYSCORE', K['broadcast'], from, '+inf', 'WITHSCORES', 'LIMIT', 0, 100)
    for index = 1, #page, 2 do
      local id, sequence = page[index], page[index + 1]
      if request.done[id] or creation_ms(id) <= start_ms then
        if contiguous then floor = tonumber(sequence) end
      else
        contiguous = false
        if not request.leased[id] and (best_id == nil or bytes_less(id, best_id)) then
          local json = redis.call('HGET', K['tasks'], id)
          local task = json and decode_stored(id, json)
          if task ~= nil and (request.filter == nil or matches(task, request.filter)) then
            best_id, best_json = id, json
          end
        end
      end
    end
    if #page < 200 then return best_id, best_json, floor end
    from = '(' .. page[#page]
  end
end

local function next_due()
  local first = redis.call('ZRANGE', K['waiting'], 0, 0, 'WITHSCORES')
  return first[2] or ''
end

-- Phase 2: exact and deferred tasks that became due join their ready pool
-- (the earliest PROMOTE_MOST per step), and leaves whose root some other
-- task's meta has are deleted (judged against the queue as this step found
-- it). Returns how many promoted tasks are due only by a later clock than
-- this call's, and how many due tasks wait for a later step's promotion.
local function search_phase_two(now, ctx)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', K['waiting'], '-inf', now, 'LIMIT', 0, PROMOTE_MOST)) do
    redis.call('ZREM', K['waiting'], id)
    local task = load_task(id)
    if task == nil then
      orphans().forget(id, ctx)
    else
      local pool, member = pool_of(id, task, shape_of(task), math.huge, 0)
      if pool ~= nil and pool ~= K['leases'] then
        redis.call('ZADD', pool, 0, member)
        redis.call('ZADD', K['promoted'], stored_due(id), id)
        if pool == K['ready-uni'] then redis.call('HSET', K['targets'], id, label_set(task.node, LABEL_WORKER) or '') end
      else
        repair_pool(id, task, ctx) -- not an unowned candidate: the record says where it goes
      end
    end
  end

  local obsolete = {}
  local entries = redis.call('HGETALL', K['obsolete'])
  for index = 1, #entries, 2 do
    local leaf_id, witness = entries[index], entries[index + 1]
    local leaf = load_task(leaf_id)
    local confirmed = false
    if leaf ~= nil and shape_of(leaf).leaf then
      if witness ~= '?' and witness ~= leaf_id then
        local other = load_task(witness)
        confirmed = other ~= nil and has(other.meta, leaf.root)
      end
      if not confirmed then
        witness = leaves().find_witness(leaf_id, leaf)
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

  -- a search whose clock is behind an earlier one neither counts nor picks
  -- exact and deferred tasks that are due only by the other's clock
  return redis.call('ZCOUNT', K['promoted'], '(' .. now, '+inf'), redis.call('ZCOUNT', K['waiting'], '-inf', now)
end

-- an answer of search: kind, id, record, floor, next due, resume
local function answer(kind, id, record, floor, due, resume)
  return kind, id or '', record or '', floor, due or '', resume or ''
end

local function search(request, ctx)
  local now, worker, filter = request.now, request.worker, request.filter

  -- most queues have no broadcast, waiting, obsolete or promoted tasks: one
  -- call tells whether those phases have anything to do
  local optional = redis.call('EXISTS', K['broadcast'], K['waiting'], K['obsolete'], K['promoted']) > 0

  local floor = request.floor
  if optional and redis.call('EXISTS', K['broadcast']) == 1 then
    local broadcast_id, broadcast
    broadcast_id, broadcast, floor = find_broadcast(request)
    floor = string.format('%d', floor)
    if broadcast ~= nil then return answer('broadcast', broadcast_id, broadcast, floor) end
  end

  local late, unpromoted = 0, 0
  if optional then late, unpromoted = search_phase_two(now, ctx) end

  -- Phase 3: the balancing share gate. Alone among the owners, this worker's
  -- share is every candidate, so the gate refuses only when no candidate is
  -- free, and then the pick finds none either: it need not count them.
  local own, workers, before = share_inputs(worker, request.self_key, ctx)
  local with_cron = redis.call('ZCARD', K['ready-cron'])
  local unicast = redis.call('ZCARD', K['ready-uni'])
  if workers > 1 then
    local candidates = redis.call('ZCARD', K['ready']) + with_cron + unicast + redis.call('ZCARD', K['leases'])
      + unpromoted - late
    local share = math.floor(candidates / workers)
    if before < candidates % workers then share = share + 1 end
    if candidates <= 0 or share - own <= 0 then return answer('none', nil, nil, floor, next_due()) end
  end

  -- Phase 4: the oldest unicast task for this worker, else the oldest `any` task.
  local picked_id, picked = nil, nil
  local excluded = request.exclude
  -- try says whether it picked the task, or 'gone' when there is no readable record
  local pool = nil -- the pool the walk is in
  local function try(id)
    if excluded[id] then return false end
    local task = load_task(id)
    if task == nil then return 'gone' end
    -- the record must still belong where its id was met (something else may
    -- have changed it): otherwise it goes where it belongs, and the walk on
    local placed, member = pool_of(id, task, shape_of(task), math.huge, 0)
    local fits
    if pool == K['ready-uni'] then
      fits = placed == pool and member == worker .. '\0' .. id
    else
      fits = placed == K['ready'] or placed == K['ready-cron']
    end
    if not fits then
      repair_pool(id, task, ctx)
      return false
    end
    if filter ~= nil and not matches(task, filter) then return false end
    if late > 0 and is_timed(task) and tonumber(redis.call('ZSCORE', K['promoted'], id) or '0') > now then
      return false
    end
    picked_id, picked = id, task
    return true
  end
  local walk = { left = WALK_MOST, ctx = ctx }
  local resume = request.resume
  local in_any = string.sub(resume, 1, 1) == 'a'
  if resume ~= '' then walk.from = string.sub(resume, 2) end
  if not in_any and unicast > 0 then
    pool = K['ready-uni']
    walks().under(K['ready-uni'], worker, walk, try)
    if walk.exhausted then return answer('more', nil, nil, floor, nil, 'u' .. walk.last) end
    walk.from = nil
  end
  if picked == nil then
    pool = nil -- `ready` or `ready-cron`
    -- the common case: the head of `ready`; anything unusual about it (no
    -- readable record, a record that belongs elsewhere) and the walk decides
    local plain = filter == nil and with_cron == 0 and next(excluded) == nil and not in_any
    if plain then
      local head = redis.call('ZRANGE', K['ready'], 0, 0)[1]
      if head ~= nil and try(head) ~= true then plain = false end
    end
    if not plain then
      walks().merged(K['ready'], with_cron > 0 and K['ready-cron'] or nil, walk, try)
      if walk.exhausted then return answer('more', nil, nil, floor, nil, 'a' .. walk.last) end
    end
  end
  -- due tasks still waiting for promotion may hold what the filter wants
  if picked == nil and unpromoted > 0 then return answer('more', nil, nil, floor, nil, '') end
  if picked == nil then return answer('none', nil, nil, floor, next_due()) end

  -- Phase 5: claim it.
  local claimed = with_core(picked, copy_map(picked.core))
  claimed.core[LABEL_WORKER] = worker
  claimed.core[LABEL_EXPIRY] = request.expiry
  ctx.expiry_ms = request.expiry_ms
  local record = encode_stored(claimed)
  redis.call('HSET', K['tasks'], picked_id, record)
  reindex(picked_id, picked, claimed, ctx)
  return answer('task', picked_id, record, floor)
end

-- a set of ids from a JSON array; '' (most searches) gives `none`
local function id_set(json, none)
  if json == '' then return none end
  local set = {}
  for _, id in ipairs(cjson.decode(json)) do set[id] = true end
  return set
end

-- SEARCH_ARGUMENTS: how many arguments search_request reads
local SEARCH_ARGUMENTS = 12

-- search_request reads a search's arguments from ARGV[first] on (their order
-- is in search.lua's header). Numbers stay strings until a phase needs them:
-- turning a 13-digit string into a number is not cheap, and the lease end is
-- only ever a score for Redis.
local function search_request(first)
  local filter = nil
  if ARGV[first + 4] ~= '' then filter = decode_task(ARGV[first + 4]) end
  local none = {} -- shared by the id sets that are empty; nobody writes to them
  return {
    now = tonumber(ARGV[first]),
    worker = ARGV[first + 1],
    expiry = ARGV[first + 2],
    expiry_ms = ARGV[first + 3],
    filter = filter,
    floor = ARGV[first + 5],
    done = id_set(ARGV[first + 6], none),
    leased = id_set(ARGV[first + 7], none),
    start_ms = ARGV[first + 8],
    exclude = id_set(ARGV[first + 9], none),
    self_key = ARGV[first + 10],
    resume = ARGV[first + 11],
  }
end
