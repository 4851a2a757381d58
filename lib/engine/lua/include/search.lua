-- search: phases 1 to 5 of docs/semantics.md §3.2 as one function.
--- @include "features"
--- @include "task"
--- @include "step"
--- @include "has"
--- @include "owners"
--- @include "roots"
--- @include "search-request"
--- @include "filters"
--- @include "parking"
--- @include "pools"
--- @include "caps"
--- @include "orphans"
--- @include "reindex"
--- @include "remove-task"
--- @include "walk"
--
-- request.now         the engine's clock, ms
-- request.worker      this engine's worker id
-- request.self_key    js_key(worker): where the worker sorts among the owners
-- request.expiry      formatTime(now + expiry): the lease end of a claim
-- request.expiry_ms   the same in ms (a string: it is a score for Redis)
-- request.filters     the decoded filters, tried in turn ({} for none)
-- request.filter_ids  their ids (lib/engine/filters.ts), in the same order
-- request.filter_json their JSON, in the same order
-- request.floor       broadcast tasks stored up to this sequence number are
--                     settled for this engine and these filters
-- request.base        ... and up to this one for every set of filters: they
--                     were created before the engine started
-- request.skip        set of broadcast ids above the floor this engine received
-- request.redeliver   set of broadcast ids it received whose local lease ended
-- request.start_ms    the engine's start instant
-- request.exclude     set of ids the caller does not want (a worker's declined tasks)
-- request.resume      where the pick resumes: '' from the start, else
--                     `<filter index>:<step>`; steps: 'u<member>' in this
--                     worker's unicast tasks, 'a<id>' in the `any` pools,
--                     'f' filling the filter's pool, 'p<member>' in its pool
-- request.slot        the worker runtime's slot that searches ('': none)
-- request.park_until  '' or a deadline (ms): park the slot when there is no work
-- request.request     the idempotent request (include/request.lua)
--
-- Returns kind ('broadcast', 'task', 'none' or 'more'), id, record (stored
-- form), floor (as a string), next due ms ('' unless 'none'), resume ('more':
-- the request.resume of the next step).
--
-- Bounded work: a search promotes at most PROMOTE_MOST due tasks, visits at
-- most WALK_MOST candidates and fills at most FILL_MOST entries of a pool, and
-- each of those loops also stops once the call's time is spent
-- (include/step.lua). A search that could not decide within that answers
-- 'more', and the engine runs the next step: the same search, resumed.

local PROMOTE_MOST = 100
local WALK_MOST = 256
local OBSOLETE_MOST = 64
local BROADCAST_MOST = 256
-- (most records a filter is new to are passed over undecoded: has.lua may_match)
local FILL_MOST = 512
-- a filter whose walk passed this many tasks without a match gets a pool
local SPARSE_AFTER = 64
-- how many filters a queue keeps at most
local FILTERS_MOST = 64
-- a filter's last use is written at most this often (ms)
local SEEN_EVERY = 60000

-- matches_any: whether one of the filters matches the task (with none, any task does)
local function matches_any(task, filters)
  if #filters == 0 then return true end
  for _, filter in ipairs(filters) do
    if matches(task, filter) then return true end
  end
  return false
end

-- Phase 1: the oldest broadcast task created after this engine started that
-- one of the filters matches and it has not received, or received and whose
-- local lease ended without completion. Writes nothing. The walk goes in
-- store order from the floor, at most BROADCAST_MOST tasks a step; what it
-- passes is settled for these filters (created before the engine started,
-- not matched, or received: the ledger has it), so the floor moves past it.
-- Returns the id and record to deliver (or nil), the new floor, and whether
-- the step ran out of its budget.
local function find_broadcast(request)
  local floor, base = tonumber(request.floor), tonumber(request.base)
  local start_ms = tonumber(request.start_ms)
  -- the base floor moves with a walk that starts there, over the tasks created
  -- before the engine started: settled for every set of filters
  local at_base = floor == base
  local best_id, best_json = nil, nil
  local function consider(id)
    if best_id ~= nil and not bytes_less(id, best_id) then return false end
    local json = redis.call('HGET', K['tasks'], id)
    local task = json and decode_stored(id, json) or nil
    if task == nil or not matches_any(task, request.filters) then return false end
    best_id, best_json = id, json
    return true
  end
  for id in pairs(request.redeliver) do
    if redis.call('ZSCORE', K['broadcast'], id) then consider(id) end
  end
  local page = redis.call('ZRANGEBYSCORE', K['broadcast'], '(' .. floor, '+inf', 'WITHSCORES', 'LIMIT', 0, BROADCAST_MOST)
  for index = 1, #page, 2 do
    local id, sequence = page[index], page[index + 1]
    local old = creation_ms(id) <= start_ms
    if not old then at_base = false end
    if not old and not request.skip[id] then
      local chosen = consider(id)
      -- the first task it may deliver ends the walk: delivered, it is settled;
      -- passed over for an older one, it is not
      if chosen then floor = tonumber(sequence) end
      if best_id ~= nil then return best_id, best_json, floor, base, false end
    end
    floor = tonumber(sequence)
    if at_base then base = floor end
    -- the call's time spent: the next step goes on from here
    if index + 1 < #page and step_spent() then return best_id, best_json, floor, base, best_id == nil end
  end
  return best_id, best_json, floor, base, #page == 2 * BROADCAST_MOST
end

local function next_due()
  local first = redis.call('ZRANGE', K['waiting'], 0, 0, 'WITHSCORES')
  return first[2] or ''
end

-- Phase 2: exact and deferred tasks that became due join their ready pool
-- (the earliest PROMOTE_MOST per step), and leaves whose root some other
-- task's meta has are deleted (OBSOLETE_MOST per step). Returns how many
-- promoted tasks are due only by a later clock than this call's, how many due
-- tasks wait for a later step's promotion, and whether no obsolete leaf is left.
local function search_phase_two(now, ctx)
  for _, id in ipairs(redis.call('ZRANGEBYSCORE', K['waiting'], '-inf', now, 'LIMIT', 0, PROMOTE_MOST)) do
    redis.call('ZREM', K['waiting'], id)
    local task = load_task(id)
    if task == nil then
      orphans().forget(id, ctx)
    else
      local pool, member = pool_of(id, task, shape_of(task), math.huge, 0)
      if pool ~= nil and pool ~= K['leases'] then
        join_ready(id, task, pool, member, ctx)
        redis.call('ZADD', K['promoted'], stored_due(id), id)
        use_feature('promoted')
      else
        repair_pool(id, task, ctx) -- not an unowned candidate: the record says where it goes
      end
    end
    if step_spent() then break end -- the rest wait for the next step (counted below)
  end

  -- root jobs go on a step at a time; obsolete leaves go before the gate
  -- counts: a search answers 'more' until none is left
  -- (half the step's time at most: obsolete leaves and the pick need the rest)
  if redis.call('EXISTS', K['root-jobs']) == 1 then roots().work(JOB_MOST, 0.5) end
  local swept = true
  if redis.call('EXISTS', K['obsolete-groups']) == 1 then
    swept = roots().sweep(OBSOLETE_MOST, function(id, task) remove_task(id, task, ctx) end)
  end

  -- a search whose clock is behind an earlier one neither counts nor picks
  -- exact and deferred tasks that are due only by the other's clock
  return redis.call('ZCOUNT', K['promoted'], '(' .. now, '+inf'), redis.call('ZCOUNT', K['waiting'], '-inf', now), swept
end

-- fill_pool: one step of filling a filter's pool with the claimable tasks
-- stored before it had one (those stored since join it as they come). The
-- state walks `ready`, then `ready-cron`, then `ready-prio`, then
-- `ready-uni`: '' (done), '<pool letter><last member>'. Returns whether the
-- pool is complete.
local function fill_pool(filter_id, query, state, ctx)
  local pools = { a = K['ready'], c = K['ready-cron'], r = K['ready-prio'], u = K['ready-uni'] }
  local order = { a = 'c', c = 'r', r = 'u' }
  local letter, last = string.sub(state, 1, 1), string.sub(state, 2)
  local left = FILL_MOST
  -- most tasks of a queue a filter is new to are of other kinds: passed over
  -- undecoded where their record cannot hold a value the filter asks for
  local spelled = spelled_values(query)
  while left > 0 do
    local key = pools[letter]
    local from = last == '' and '-' or '(' .. last
    local page = math.min(left, 128)
    local members = redis.call('ZRANGEBYLEX', key, from, '+', 'LIMIT', 0, page)
    for _, member in ipairs(members) do
      left = left - 1
      last = member
      local id, target, tag = member, '', ''
      if letter == 'u' then id, target = string.sub(member, -26), string.sub(member, 1, -28) end
      if letter == 'r' then id, tag = string.sub(member, -26), string.sub(member, 1, -27) end
      local json = redis.call('HGET', K['tasks'], id)
      local task = json and may_match(json, spelled) and decode_stored(id, json) or nil
      if task ~= nil and matches(task, query) then
        redis.call('ZADD', K['ready-filtered'], 0, filter_id .. '\0' .. target .. '\0' .. tag .. id)
      end
      -- the clock every 16 records: a record passed over costs less than a look at it
      if left > 0 and left % 16 == 0 and step_spent() then left = 0 end
      if left <= 0 then break end
    end
    if #members < page and left > 0 then
      letter, last = order[letter], ''
      if letter == nil then
        redis.call('HSET', K['filter-pools'], filter_id, '')
        use_feature('filter-pools')
        return true
      end
    end
  end
  redis.call('HSET', K['filter-pools'], filter_id, letter .. last)
  use_feature('filter-pools')
  return false
end

-- note_filter: the queue knows the filter from now on (its wake-ups; with
-- `pooled`, a pool to fill). Says whether it does (there is room for it).
local function note_filter(filter_id, json, now, pooled)
  if redis.call('HEXISTS', K['filters'], filter_id) == 0 then
    if redis.call('HLEN', K['filters']) >= FILTERS_MOST then return false end
    redis.call('HSET', K['filters'], filter_id, json)
    use_feature('filters')
    redis.call('ZADD', K['filter-seen'], now, filter_id)
  end
  if pooled then
    local state = redis.call('HGET', K['filter-pools'], filter_id)
    -- a new pool, or one expire is emptying ('x'): fill it from the start
    if not state or state == 'x' then
      redis.call('HSET', K['filter-pools'], filter_id, 'a')
      use_feature('filter-pools')
    end
  end
  return true
end

-- seen: a filter in use stays known (expire drops filters unused for long)
local function seen(filter_id, now)
  local last = tonumber(redis.call('ZSCORE', K['filter-seen'], filter_id) or '0')
  if last + SEEN_EVERY <= now then redis.call('ZADD', K['filter-seen'], now, filter_id) end
end

-- pass_wake_on: a slot the share gate turns away may have been woken for a
-- task that, by the time it searched, another worker's share holds (a task
-- finished or claimed meanwhile moved the shares). The wake-up goes on to a
-- parked slot that may take the oldest `any` task, else that task would wait
-- for a poll; finish names the slot (never one of this worker's: its gate is
-- closed, so nothing bounces back).
local function pass_wake_on(ctx, with_prio)
  if redis.call('EXISTS', K['parked-slots']) == 0 then return end
  local id = with_prio > 0 and string.sub(redis.call('ZRANGE', K['ready-prio'], 0, 0)[1] or '', -26) or nil
  if id == '' then id = nil end
  id = id or redis.call('ZRANGE', K['ready'], 0, 0)[1] or redis.call('ZRANGE', K['ready-cron'], 0, 0)[1]
  local task = id and load_task(id)
  if not task then return end
  ctx.claimable[#ctx.claimable + 1] = { target = '', filter_ids = filters().matching(task) }
end

local function search(request, ctx)
  local now, worker = request.now, request.worker
  local slot_key = nil
  if request.slot ~= '' then
    slot_key = worker .. '\0' .. request.slot
    parking().unpark(slot_key)
  end

  -- no work: the runtime's slot parks until a task it may take comes (or
  -- the queue resumes); paused: no due time either, the resume wakes it
  local function idle(floor, paused, reopen)
    if slot_key ~= nil and request.park_until ~= '' then
      local filter_ids = {}
      for index, filter_id in ipairs(request.filter_ids) do
        if note_filter(filter_id, request.filter_json[index], now, false) then
          filter_ids[#filter_ids + 1] = filter_id
        else
          filter_ids = { '' } -- a filter the queue has no room for: wake for any task
          break
        end
      end
      if #filter_ids == 0 then filter_ids = { '' } end
      parking().park(slot_key, tonumber(request.park_until), filter_ids)
    end
    if paused then return answer('none', nil, nil, floor, '') end
    -- a rate limit that passed over tasks: the slot is due when its window reopens
    local due = next_due()
    reopen = reopen or ctx.reopen
    if reopen == nil and ctx.rated then
      -- turned away before the walk (the share gate), or the tasks of closed
      -- windows wait aside (§3.17): the next window to reopen that has some
      -- (of the first 16; past those, the 16th: the slot looks again then)
      local first = redis.call('ZRANGEBYSCORE', K['rate-expiry'], '(' .. now, '+inf', 'WITHSCORES', 'LIMIT', 0,
        ctx.laned and 16 or 1)
      for index = 1, #first, 2 do
        if not ctx.laned or first[index] == '' or index == 31 or aside().head(first[index]) ~= nil then
          reopen = tonumber(first[index + 1])
          break
        end
      end
    end
    if reopen ~= nil and (due == '' or tonumber(due) > reopen) then due = string.format('%d', reopen) end
    return answer('none', nil, nil, floor, due)
  end

  -- most queues have no broadcast, waiting, obsolete or promoted tasks: one
  -- call tells whether those phases have anything to do; whether the queue
  -- has tasks with a priority or is paused, the `features` this call read
  -- tell (a field is never missing while its key exists), else the same call
  local used = features(true)
  local optional
  if used == nil then
    optional = redis.call('EXISTS', K['broadcast'], K['waiting'], K['obsolete-groups'], K['promoted'],
      K['root-jobs'], K['ready-prio'], K['paused'], K['caps'], K['rates'], K['rate-windows'], K['paused-queries'],
      K['aside-of']) > 0
  else
    optional = redis.call('EXISTS', K['broadcast'], K['waiting'], K['obsolete-groups'], K['promoted'],
      K['root-jobs']) > 0
  end
  local maybe_prio = (used == nil and optional) or (used ~= nil and used['ready-prio'] == true)
  local maybe_paused = (used == nil and optional) or (used ~= nil and used['paused'] == true)
  -- concurrency caps (§3.15): the claim below takes their slots (reindex)
  ctx.capped = ((used == nil and optional) or (used ~= nil and used['caps'] == true))
    and redis.call('EXISTS', K['caps']) == 1
  -- rate limits and holds (§3.16): passed over at the walk, counted at the claim
  ctx.rated = ((used == nil and optional) or (used ~= nil and (used['rates'] or used['rate-windows']) == true))
    and redis.call('EXISTS', K['rates'], K['rate-windows']) > 0
  ctx.reopen = nil
  -- paused queries and lanes (§3.17): the walk sets aside what it may not take
  ctx.aside = false
  if (used == nil and optional) or (used ~= nil and (used['paused-queries'] or used['aside-of']
    or used['caps'] or used['rates']) == true) then
    local all = features()
    ctx.aside = all['paused-queries'] == true or ((ctx.capped or ctx.rated) and #caps().lanes() > 0)
    ctx.laned = all['aside-of'] == true
  end

  local floor = request.floor .. ':' .. request.base
  -- a paused queue hands out nothing (§3.14): the slot parks, resume wakes it
  if maybe_paused and redis.call('EXISTS', K['paused']) == 1 then return idle(floor, true) end
  if optional and redis.call('EXISTS', K['broadcast']) == 1 then
    -- a counter below the floor: Redis went back in time (an older snapshot,
    -- a failover to a lagging replica); the engine lowers its floors
    local sequence = redis.call('GET', K['sequence']) or '0'
    if tonumber(sequence) < tonumber(request.floor) then
      return answer('more', nil, nil, sequence .. ':' .. sequence, nil, '', '1')
    end
    local broadcast_id, broadcast, at, base, exhausted = find_broadcast(request)
    floor = string.format('%d:%d', at, base)
    if broadcast ~= nil then return answer('broadcast', broadcast_id, broadcast, floor) end
    if exhausted then return answer('more', nil, nil, floor, nil, '') end
  end

  local late, unpromoted, swept = 0, 0, true
  if optional then late, unpromoted, swept = search_phase_two(now, ctx) end
  if not swept then return answer('more', nil, nil, floor, nil, '') end
  -- lanes whose windows reopened, or that a step could not fill, get their
  -- first tasks back before the walk (§3.17); more windows than a step
  -- prunes: the search goes on with them when it finds nothing
  local reopened = false
  if ctx.rated then reopened = caps().prune_windows(now, 32, ctx) end
  if ctx.aside then
    if features()['aside-refill'] then aside().go_on(4, ctx) end
    aside().refill(ctx)
  end

  -- Phase 3: the balancing share gate. Alone among the owners, this worker's
  -- share is every candidate, so the gate refuses only when no candidate is
  -- free, and then the pick finds none either: it need not count them.
  local own, workers, before = share_inputs(worker, request.self_key, ctx)
  local with_cron = redis.call('ZCARD', K['ready-cron'])
  local unicast = redis.call('ZCARD', K['ready-uni'])
  -- tasks with a priority (§3.13): a queue that has none asks nothing more.
  -- Phase two may have promoted the first: use_feature set its field in the
  -- features read (a call that read them before this search began, the
  -- lean path's, saw no field)
  local promoted_used = features(true)
  if promoted_used ~= nil and promoted_used['ready-prio'] then maybe_prio = true end
  local with_prio = maybe_prio and redis.call('ZCARD', K['ready-prio']) or 0
  if workers > 1 then
    local candidates = redis.call('ZCARD', K['ready']) + with_cron + unicast + with_prio
      + redis.call('ZCARD', K['leases']) + unpromoted - late
    local share = math.floor(candidates / workers)
    if before < candidates % workers then share = share + 1 end
    if candidates <= 0 or share - own <= 0 then
      pass_wake_on(ctx, with_prio)
      return idle(floor)
    end
  end

  -- a whole-queue cap that is reached: nothing to hand out until a task
  -- ends (giving its slot back wakes a parked slot)
  if ctx.capped and caps().whole_full() then return idle(floor) end
  -- the whole queue's window is full (or held): the slot is due when it reopens
  if ctx.rated then
    local reopen = caps().rate_whole(now)
    if reopen ~= nil then return idle(floor, false, reopen) end
  end

  -- Phase 4: with each filter in turn, the oldest unicast task for this
  -- worker, else the `any` task of the highest priority, the oldest of it.
  local picked_id, picked = nil, nil
  local excluded = request.exclude
  local filter = nil
  local pool = nil -- where the walk is: `ready-uni`, or nil for `ready` and `ready-cron`
  local pooled = false -- whether the walk is in a filter's pool
  -- try says whether it picked the task: true, false, 'gone' (no readable
  -- record) or 'stale' (a pool entry of a filter the task does not match)
  local function try(id, met)
    met = met or id
    if excluded[id] then
      if ctx.laned then aside().pass(id, ctx) end -- declined: the walk goes on into its lanes
      return false
    end
    local task = load_task(id)
    if task == nil then return 'gone' end
    -- the record must still belong where its id was met (something else may
    -- have changed it): otherwise it goes where it belongs, and the walk on
    local placed, member = pool_of(id, task, shape_of(task), math.huge, 0)
    local fits
    if pool == K['ready-uni'] then
      fits = placed == pool and member == worker .. '\0' .. id
    else
      -- met with the priority tag it has (in `ready-prio` or a filter's pool)
      local tag = placed == K['ready-prio'] and string.sub(member, 1, -27) or ''
      fits = (placed == K['ready'] or placed == K['ready-cron'] or placed == K['ready-prio'])
        and member_tag(met) == tag
    end
    if not fits then
      if pooled then return 'stale' end -- an entry a pool kept too long: the pool is derived
      repair_pool(id, task, ctx)
      -- a member of `ready-prio`: repair_pool cannot find it without the record it had
      if member_tag(met) ~= '' then return 'stale' end
      return false
    end
    if filter ~= nil and not matches(task, filter) then
      if pooled then return 'stale' end
      if ctx.laned then aside().pass(id, ctx) end -- the walk goes on into its lanes
      return false
    end
    -- a task of a paused query, or of a value that is full or whose window
    -- is closed, is set aside (§3.17): no later walk meets it
    if ctx.aside then
      local verdict = aside().walked(id, task, placed, member, ctx)
      if verdict ~= nil then return verdict end
    end
    -- a unicast task of a value at its cap: passed over, the walk goes on to other values
    if ctx.capped and caps().full(task) then return false end
    -- a value whose rate window is full: passed over as well (the earliest reopen is the slot's due time)
    if ctx.rated then
      local reopen = caps().rate_closed(task, now)
      if reopen ~= nil then
        if ctx.reopen == nil or reopen < ctx.reopen then ctx.reopen = reopen end
        return false
      end
    end
    if late > 0 and is_timed(task) and tonumber(redis.call('ZSCORE', K['promoted'], id) or '0') > now then
      return false
    end
    picked_id, picked = id, task
    return true
  end
  local walk = { left = WALK_MOST, ctx = ctx }
  local first, step = 1, ''
  if request.resume ~= '' then
    local index, rest = string.match(request.resume, '^(%d+):(.*)$')
    first, step = tonumber(index), rest
  end
  local count = math.max(#request.filters, 1)
  for index = first, count do
    filter = request.filters[index]
    local filter_id = request.filter_ids[index]
    local kind, from = string.sub(step, 1, 1), string.sub(step, 2)
    if index > first then kind, from = '', '' end
    local filling = nil
    if filter_id ~= nil then filling = redis.call('HGET', K['filter-pools'], filter_id) end
    if filling and redis.call('HEXISTS', K['filters'], filter_id) == 1 then
      -- a pooled filter: fill its pool if needed, then look it up
      if filling ~= '' and not fill_pool(filter_id, filter, filling, ctx) then
        return answer('more', nil, nil, floor, nil, index .. ':f')
      end
      seen(filter_id, now)
      pooled = true
      local prefix = filter_id .. '\0'
      walk.from = nil
      if kind == 'p' then walk.from = from end
      local in_any = walk.from ~= nil and string.sub(walk.from, 1, #prefix + 1) == prefix .. '\0'
      if not in_any and unicast > 0 then
        pool = K['ready-uni']
        walks().under(K['ready-filtered'], prefix .. worker, walk, try)
        if walk.exhausted then return answer('more', nil, nil, floor, nil, index .. ':p' .. walk.last) end
        walk.from = nil
      end
      if picked == nil then
        pool = nil
        walks().under(K['ready-filtered'], prefix, walk, try)
        if walk.exhausted then return answer('more', nil, nil, floor, nil, index .. ':p' .. walk.last) end
      end
    else
      pooled = false
      local visited = walk.left
      walk.from = nil
      if kind == 'u' or kind == 'a' then walk.from = from end
      if kind ~= 'a' and unicast > 0 then
        pool = K['ready-uni']
        walks().under(K['ready-uni'], worker, walk, try)
        if walk.exhausted then return answer('more', nil, nil, floor, nil, index .. ':u' .. walk.last) end
        walk.from = nil
      end
      if picked == nil then
        pool = nil
        -- the common case: the head of `ready`; anything unusual about it (no
        -- readable record, a record that belongs elsewhere) and the walk decides
        local plain = filter == nil and with_cron == 0 and with_prio == 0 and next(excluded) == nil and kind ~= 'a'
        if plain then
          local head = redis.call('ZRANGE', K['ready'], 0, 0)[1]
          if head ~= nil and try(head) ~= true then plain = false end
        end
        if not plain then
          walks().merged(K['ready'], with_cron > 0 and K['ready-cron'] or nil, with_prio > 0 and K['ready-prio'] or nil,
            walk, try)
          if walk.exhausted then
            -- a filter that matches few of many tasks: its next search looks it up
            if filter_id ~= nil then note_filter(filter_id, request.filter_json[index], now, true) end
            return answer('more', nil, nil, floor, nil, index .. ':a' .. walk.last)
          end
        end
      end
      if picked == nil and filter_id ~= nil and visited - walk.left >= SPARSE_AFTER then
        note_filter(filter_id, request.filter_json[index], now, true)
      end
    end
    if picked ~= nil then break end
  end
  -- due tasks still waiting for promotion may hold what the filters want
  if picked == nil and (unpromoted > 0 or reopened) then return answer('more', nil, nil, floor, nil, '') end
  if picked == nil then return idle(floor) end

  -- Phase 5: claim it.
  local claimed = with_core(picked, copy_map(picked.core))
  claimed.core[LABEL_WORKER] = worker
  claimed.core[LABEL_EXPIRY] = request.expiry
  claimed.core[LABEL_TOKEN] = string.format('%d', redis.call('INCR', K['claims']))
  ctx.claimed = picked_id .. ':' .. claimed.core[LABEL_TOKEN]
  ctx.expiry_ms = request.expiry_ms
  local record = encode_stored(claimed)
  if ctx.rated then caps().rate_count(picked, now, ctx) end
  redis.call('HSET', K['tasks'], picked_id, record)
  reindex(picked_id, picked, claimed, ctx)
  tell_claim(picked_id, worker)
  return answer('task', picked_id, record, floor)
end
