-- index: keep every index of a task in step with its content. Needs the
-- task and has includes. reindex(id, old, new, ctx) moves a task from the
-- indexes of its old content (nil: a new task) to those of its new content
-- (nil: removed), touching only the indexes whose membership changes.
--
-- ctx.now          the calling engine's clock, ms
-- ctx.due_ms       due time of a new exact / deferred task (else kept from `due`)
-- ctx.tick_p1_ms   tick+1 of a new or advanced cron template
-- ctx.expiry_ms    lease end of a new or renewed owner
-- ctx.wake         set here: which workers have new claimable work ('' = any)
-- ctx.next_due     set here: the earliest due time of a task put in `waiting`
-- ctx.next_tick    set here: the earliest tick+1 of a template stored or advanced
--
-- The owners counts and the context (ctx) are in include/owners.lua.
--
-- Redis runs a script's whole chunk on every call, so each function defined
-- costs every call. What most calls never need (roots, gates, children) lives
-- in modules built on first use: links(), and roots() in include/roots.lua.

local ID_LENGTH = 26

-- links: the lex zsets that tie tasks together (gate keys, children, watched
-- root pairs), built on first use
local links_module = nil
local function links()
  if links_module ~= nil then return links_module end
  local M = {}

  -- ids of the members `<prefix>\0<id>` of a lex zset
  function M.ids_under(key, prefix)
    local members = redis.call('ZRANGEBYLEX', key, '[' .. prefix .. '\0', '[' .. prefix .. '\0\255')
    local ids = {}
    for _, member in ipairs(members) do
      if string.sub(member, 1, -(ID_LENGTH + 2)) == prefix then
        ids[#ids + 1] = string.sub(member, -ID_LENGTH)
      end
    end
    return ids
  end

  function M.index_gate_template(id, gate, add)
    for key in pairs(gate) do
      if add then
        redis.call('ZADD', K['gates'], 0, key .. '\0' .. id)
      else
        redis.call('ZREM', K['gates'], key .. '\0' .. id)
      end
    end
    if add then redis.call('ZADD', K['gate-templates'], 0, id) else redis.call('ZREM', K['gate-templates'], id) end
  end

  -- ids of a template's children, oldest first
  function M.children_of(template_id)
    local members = redis.call('ZRANGEBYLEX', K['children'], '[' .. template_id, '[' .. template_id .. '\255')
    local ids = {}
    for _, member in ipairs(members) do
      if #member == #template_id + ID_LENGTH and string.sub(member, 1, #template_id) == template_id then
        ids[#ids + 1] = string.sub(member, -ID_LENGTH)
      end
    end
    return ids
  end

  -- a cron template that lost its last child may need tick-1 maintenance
  function M.child_gone(template_id)
    if redis.call('ZSCORE', K['templates'], template_id) and #M.children_of(template_id) == 0 then
      redis.call('ZADD', K['ticker-check'], '-inf', template_id)
    end
  end

  links_module = M
  return M
end

-- filters: the queries workers search with (their handlers' labels), built
-- on first use. A filter the queue knows gets a wake-up when a task it matches
-- becomes claimable; a filter with a pool (`filter-pools`, made for filters
-- that match few tasks) also keeps its matching tasks in `ready-filtered`, so
-- its search is a lookup instead of a walk.
local filters_module = nil
local function filters()
  if filters_module ~= nil then return filters_module end
  local M = {}
  local list = nil

  -- every filter the queue knows: { id, query, pooled }
  function M.all()
    if list ~= nil then return list end
    list = {}
    if redis.call('EXISTS', K['filters']) == 0 then return list end
    local pooled = {}
    local pools = redis.call('HKEYS', K['filter-pools'])
    for _, filter_id in ipairs(pools) do pooled[filter_id] = true end
    local entries = redis.call('HGETALL', K['filters'])
    for index = 1, #entries, 2 do
      local query = decode_task(entries[index + 1])
      if query ~= nil then
        list[#list + 1] = { id = entries[index], query = query, pooled = pooled[entries[index]] == true }
      end
    end
    return list
  end

  -- joined: a task became claimable under a target ('' for `any` tasks): it
  -- joins the pools of the filters it matches, whose ids are returned; tag:
  -- its priority_tag ('' for none), in front of the id, so a pool is in
  -- priority order too
  function M.joined(id, task, target, tag)
    local wanted = {}
    for _, filter in ipairs(M.all()) do
      if matches(task, filter.query) then
        wanted[#wanted + 1] = filter.id
        if filter.pooled then
          redis.call('ZADD', K['ready-filtered'], 0, filter.id .. '\0' .. target .. '\0' .. tag .. id)
        end
      end
    end
    return wanted
  end

  -- matching: the ids of the filters a task matches (its pools unchanged)
  function M.matching(task)
    local wanted = {}
    for _, filter in ipairs(M.all()) do
      if matches(task, filter.query) then wanted[#wanted + 1] = filter.id end
    end
    return wanted
  end

  -- left: a task is no longer claimable under a target (tag: as joined)
  function M.left(id, target, tag)
    for _, filter in ipairs(M.all()) do
      if filter.pooled then
        redis.call('ZREM', K['ready-filtered'], filter.id .. '\0' .. target .. '\0' .. tag .. id)
      end
    end
  end

  filters_module = M
  return M
end

-- parking: the idle slots of workers, waiting for work. A slot that found no
-- work parks under each of its filters (`parked`: `<filter id>\0<deadline
-- ms>\0<worker>\0<slot>`, oldest deadline first; '' for a slot without
-- filters), and under its worker (`parked-workers`: `<worker>\0<slot>`);
-- `parked-slots` says where it parked. A task that becomes claimable unparks
-- one slot that may take it and tells that slot (finish). A slot's next search
-- unparks it; a slot whose deadline passed is gone (its worker died) and is
-- dropped where met.
local parking_module = nil
local function parking()
  if parking_module ~= nil then return parking_module end
  local M = {}

  function M.unpark(slot_key)
    local parked = redis.call('HGET', K['parked-slots'], slot_key)
    if not parked then return end
    local deadline, filter_list = string.match(parked, '^(%d+)%z(.*)$')
    for filter_id in string.gmatch(filter_list or '', '([^,]*),') do
      redis.call('ZREM', K['parked'], filter_id .. '\0' .. deadline .. '\0' .. slot_key)
    end
    redis.call('HDEL', K['parked-slots'], slot_key)
    redis.call('ZREM', K['parked-workers'], slot_key)
  end

  -- park: filter_ids is a list of ids ('' for no filter)
  function M.park(slot_key, deadline_ms, filter_ids)
    M.unpark(slot_key)
    local deadline = string.format('%013d', deadline_ms)
    local filter_list = {}
    for _, filter_id in ipairs(filter_ids) do
      redis.call('ZADD', K['parked'], 0, filter_id .. '\0' .. deadline .. '\0' .. slot_key)
      filter_list[#filter_list + 1] = filter_id .. ','
    end
    redis.call('HSET', K['parked-slots'], slot_key, deadline .. '\0' .. table.concat(filter_list))
    redis.call('ZADD', K['parked-workers'], 0, slot_key)
    use_feature('parked-slots')
  end

  -- take unparks the first live slot parked under the prefix for which
  -- may_take(worker) holds, and returns its key `<worker>\0<slot>`
  -- how many parked slots one script may look at: the wake-ups of a script
  -- that makes many tasks claimable at once stay bounded
  local looks_left = 64
  function M.exhausted()
    return looks_left <= 0
  end

  local function take_under(key, prefix, now, may_take, read)
    local from = '[' .. prefix
    while looks_left > 0 do
      looks_left = looks_left - 1
      local member = redis.call('ZRANGEBYLEX', key, from, '[' .. prefix .. '\255', 'LIMIT', 0, 1)[1]
      if member == nil then return nil end
      local deadline, slot_key = read(member)
      local worker = string.match(slot_key, '^(.*)%z[^%z]*$')
      if deadline ~= nil and deadline < now then
        M.unpark(slot_key) -- its worker stopped searching long ago
      elseif worker ~= nil and may_take(worker) then
        M.unpark(slot_key)
        return slot_key
      else
        from = '(' .. member
      end
    end
    return nil
  end

  -- take: a slot for a task that became claimable (target: its unicast
  -- worker, or '' for any; filter_ids: the filters it matches)
  function M.take(target, filter_ids, now, may_take)
    if target ~= '' then
      return take_under(K['parked-workers'], target .. '\0', now, may_take, function(member)
        local parked = redis.call('HGET', K['parked-slots'], member)
        return tonumber(parked and string.match(parked, '^(%d+)') or '0'), member
      end)
    end
    local tried = {}
    for _, filter_id in ipairs(filter_ids) do tried[#tried + 1] = filter_id end
    tried[#tried + 1] = ''
    for _, filter_id in ipairs(tried) do
      local prefix = filter_id .. '\0'
      local slot_key = take_under(K['parked'], prefix, now, may_take, function(member)
        return tonumber(string.sub(member, #prefix + 1, #prefix + 13)), string.sub(member, #prefix + 15)
      end)
      if slot_key ~= nil then return slot_key end
    end
    return nil
  end

  parking_module = M
  return M
end

-- join_ready puts a task in a ready pool: the pool, its unicast target, the
-- pools of the filters it matches, and a note for finish to wake a slot
local function join_ready(id, task, pool, member, ctx)
  redis.call('ZADD', pool, 0, member)
  local target, tag = '', ''
  if pool == K['ready-uni'] then
    target = label_set(task.node, LABEL_WORKER) or ''
    redis.call('HSET', K['targets'], id, target)
    use_feature('ready-uni')
  elseif pool == K['ready-cron'] then
    use_feature('ready-cron')
  elseif pool == K['ready-prio'] then
    tag = string.sub(member, 1, -27)
    use_feature('ready-prio')
  end
  ctx.claimable[#ctx.claimable + 1] = { target = target, filter_ids = filters().joined(id, task, target, tag) }
end

-- leave_ready takes a task out of a ready pool and the pools of its filters
local function leave_ready(id, pool, member)
  redis.call('ZREM', pool, member)
  local target, tag = '', ''
  if pool == K['ready-uni'] then
    target = string.sub(member, 1, -28)
    redis.call('HDEL', K['targets'], id)
  elseif pool == K['ready-prio'] then
    tag = string.sub(member, 1, -27)
  end
  filters().left(id, target, tag)
end

-- drop_unicast removes a task from `ready-uni`, under the target `targets`
-- says (the record may say something else, or nothing)
local function drop_unicast(id)
  local target = redis.call('HGET', K['targets'], id)
  if target then leave_ready(id, K['ready-uni'], target .. '\0' .. id) end
end

-- caps: concurrency caps (docs/semantics.md §3.15), built on first use.
-- `caps`: meta key -> most tasks of one value owned at once ('' -> most tasks
-- owned at once in the whole queue: that count is HLEN `holders`).
-- `cap-counts`: `<meta key>\0<value>` -> how many tasks of the value are
-- owned; `cap-holders`: id of an owned task -> JSON list of the cap-counts
-- fields it holds a slot in. A slot is taken where a claim adds the task to
-- `holders` and given back wherever `holders` loses it, so every way
-- ownership ends (and expire's revocation after a crash) gives it back.
local caps_module = nil
local function caps()
  if caps_module ~= nil then return caps_module end
  local M = {}
  local declared = nil
  local counts = {} -- cap-counts fields read or written this call

  -- declared: { whole = most or nil, keys = { { key, most }, ... } }
  function M.declared()
    if declared ~= nil then return declared end
    declared = { keys = {} }
    if features()['caps'] then
      local flat = redis.call('HGETALL', K['caps'])
      for index = 1, #flat, 2 do
        local most = tonumber(flat[index + 1])
        if flat[index] == '' then
          declared.whole = most
        else
          declared.keys[#declared.keys + 1] = { flat[index], most }
        end
      end
    end
    return declared
  end

  local function count_of(field)
    local count = counts[field]
    if count == nil then
      count = tonumber(redis.call('HGET', K['cap-counts'], field) or '0')
      counts[field] = count
    end
    return count
  end

  -- whole_full: the queue owns as many tasks as its whole-queue cap allows
  function M.whole_full()
    local whole = M.declared().whole
    return whole ~= nil and redis.call('HLEN', K['holders']) >= whole
  end

  -- full: a value of the task's meta has as many owned tasks as its cap allows
  function M.full(task)
    local meta = task.meta or {}
    for _, cap in ipairs(M.declared().keys) do
      local value = meta[cap[1]]
      if value ~= nil and count_of(cap[1] .. '\0' .. value) >= cap[2] then return true end
    end
    return false
  end

  -- hold: the task (now owned) takes a slot of each of its capped values
  function M.hold(id, task, fields)
    local meta = task.meta or {}
    local held = fields or {}
    for _, cap in ipairs(M.declared().keys) do
      local value = meta[cap[1]]
      if value ~= nil then
        local field = cap[1] .. '\0' .. value
        counts[field] = redis.call('HINCRBY', K['cap-counts'], field, 1)
        held[#held + 1] = field
      end
    end
    if #held > 0 then
      redis.call('HSET', K['cap-holders'], id, cjson.encode(held))
      use_feature('cap-holders')
    end
  end

  -- give: the task is no longer owned: its slots go back, and with a cap
  -- declared a parked slot is woken (the task the slot waited for may be
  -- of the value that has room now); task: its record, or nil
  function M.give(id, task, ctx)
    local used = features()
    if used['cap-holders'] then
      local json = redis.call('HGET', K['cap-holders'], id)
      if json then
        redis.call('HDEL', K['cap-holders'], id)
        for _, field in ipairs(cjson.decode(json)) do
          local count = redis.call('HINCRBY', K['cap-counts'], field, -1)
          if count <= 0 then
            redis.call('HDEL', K['cap-counts'], field)
            count = 0
          end
          counts[field] = count
        end
      end
    end
    if used['caps'] and used['parked-slots'] then
      ctx.claimable[#ctx.claimable + 1] = { target = '', filter_ids = task and filters().matching(task) or {} }
    end
  end

  -- rate limits (docs/semantics.md §3.16), in this module so that search
  -- needs no other upvalue. `rates`: meta key ('' the whole queue) ->
  -- `<limit>:<window ms>`; `rate-windows`: `<meta key>\0<value>` ('' the
  -- whole queue) -> `<reopen ms>:<claims>` of the fixed window (aligned on
  -- the epoch) that ends at reopen, claims -1 while context.rateLimit holds
  -- the value; `rate-expiry`: the same fields by reopen ms, pruned a few a
  -- claim. The clock is the engine's (request.now).
  local rates_declared = nil
  local windows = {} -- rate-windows fields read or written this call

  -- rates: { whole = { '', limit, window } or nil, keys = { { key, limit, window }, ... } }
  function M.rates()
    if rates_declared ~= nil then return rates_declared end
    rates_declared = { keys = {} }
    local flat = redis.call('HGETALL', K['rates'])
    for index = 1, #flat, 2 do
      local limit, window = string.match(flat[index + 1], '^(%d+):(%d+)$')
      local rate = { flat[index], tonumber(limit), tonumber(window) }
      if flat[index] == '' then
        rates_declared.whole = rate
      else
        rates_declared.keys[#rates_declared.keys + 1] = rate
      end
    end
    return rates_declared
  end

  local function window_of(field)
    local window = windows[field]
    if window == nil then
      local raw = redis.call('HGET', K['rate-windows'], field)
      local reopen, claims = 0, 0
      if raw then
        local r, c = string.match(raw, '^(%d+):(-?%d+)$')
        reopen, claims = tonumber(r) or 0, tonumber(c) or 0
      end
      window = { reopen, claims }
      windows[field] = window
    end
    return window
  end

  -- closed_until: when the field's value may be claimed again (nil: now)
  local function closed_until(field, limit, now)
    local window = window_of(field)
    if window[1] > now and (window[2] < 0 or (limit ~= nil and window[2] >= limit)) then return window[1] end
    return nil
  end

  local function write_window(field, reopen, claims)
    windows[field] = { reopen, claims }
    redis.call('HSET', K['rate-windows'], field, string.format('%d:%d', reopen, claims))
    redis.call('ZADD', K['rate-expiry'], reopen, field)
    use_feature('rate-windows')
  end

  -- rate_whole: when the whole queue may be claimed from again (nil: now)
  function M.rate_whole(now)
    local whole = M.rates().whole
    return closed_until('', whole and whole[2], now)
  end

  -- the fields of the task's values that have a keyed limit
  local function rated_fields(task)
    local meta, fields = task.meta or {}, {}
    for _, rate in ipairs(M.rates().keys) do
      local value = meta[rate[1]]
      if value ~= nil then fields[#fields + 1] = { rate[1] .. '\0' .. value, rate[2], rate[3] } end
    end
    return fields
  end

  -- rate_closed: when a value of the task may be claimed again (nil: now)
  function M.rate_closed(task, now)
    local latest = nil
    for _, field in ipairs(rated_fields(task)) do
      local reopen = closed_until(field[1], field[2], now)
      if reopen ~= nil and (latest == nil or reopen > latest) then latest = reopen end
    end
    return latest
  end

  -- rate_count: the claim of the task counts in the windows of its values
  -- and of the whole queue; a few windows that ended are pruned
  function M.rate_count(task, now)
    local fields = rated_fields(task)
    local whole = M.rates().whole
    if whole ~= nil then fields[#fields + 1] = whole end
    for _, field in ipairs(fields) do
      local window = window_of(field[1])
      if window[1] > now and window[2] >= 0 then
        write_window(field[1], window[1], window[2] + 1)
      else
        write_window(field[1], now - now % field[3] + field[3], 1)
      end
    end
    local ended = redis.call('ZRANGEBYSCORE', K['rate-expiry'], '-inf', now, 'LIMIT', 0, 4)
    for _, field in ipairs(ended) do
      redis.call('ZREM', K['rate-expiry'], field)
      redis.call('HDEL', K['rate-windows'], field)
      windows[field] = nil
    end
  end

  -- rate_hold: context.rateLimit: no claim of the task's limited values
  -- (the whole queue when no keyed limit applies) before until_ms; returns
  -- the fields held
  function M.rate_hold(task, until_ms, now)
    local fields = rated_fields(task)
    if #fields == 0 then fields = { { '' } } end
    local held = {}
    for _, field in ipairs(fields) do
      local window = window_of(field[1])
      local reopen = until_ms
      if window[1] > now and window[2] < 0 and window[1] > reopen then reopen = window[1] end
      write_window(field[1], reopen, -1)
      held[#held + 1] = field[1]
    end
    return held
  end

  caps_module = M
  return M
end

-- orphans: index entries whose task record is gone or unreadable (a record
-- changed by something else than the engine, docs/semantics.md §1.10). Built on first
-- use: well-formed queues never need it.
local orphans_module = nil
local function orphans()
  if orphans_module ~= nil then return orphans_module end
  local M = {}

  -- forget removes an id from the pools, and gives back the owners count it
  -- held. Members that carry a prefix the record alone says (`gates`,
  -- `children`, `root-leaves`, `meta-tasks`) cannot be found without it: each
  -- is dropped where an operation meets it, and repair rebuilds them all.
  function M.forget(id, ctx)
    leave_ready(id, K['ready'], id)
    leave_ready(id, K['ready-cron'], id)
    for _, key in ipairs({ K['waiting'], K['promoted'], K['leases'], K['broadcast'], K['retention'],
      K['templates'], K['ticker-check'], K['gate-templates'], K['halted'], K['halted-since'] }) do
      redis.call('ZREM', key, id)
    end
    redis.call('HDEL', K['due'], id)
    drop_unicast(id)
    local holder = holder_of(redis.call('HGET', K['holders'], id))
    if holder then
      redis.call('HDEL', K['holders'], id)
      count_owner(holder, -1, ctx)
      caps().give(id, nil, ctx)
    end
  end

  orphans_module = M
  return M
end

-- where a candidate waits: `leases` when owned, `waiting` until due, else a
-- ready pool; the pool's key, with the member it has there. An `any` task
-- with a priority other than 0 waits in `ready-prio`, its member the
-- priority_tag and the id (include/task.lua), cron map or not
local function pool_of(id, task, shape, now, due)
  if not shape.candidate then return nil, nil end
  if shape.owner ~= nil then return K['leases'], id end
  if shape.timed and due > now then return K['waiting'], id end
  if shape.method == METHOD_UNI then
    return K['ready-uni'], (label_set(task.node, LABEL_WORKER) or '') .. '\0' .. id
  end
  local tag = priority_tag(task)
  if tag ~= '' then return K['ready-prio'], tag .. id end
  if task.cron ~= nil then return K['ready-cron'], id end
  return K['ready'], id
end

local function stored_due(id)
  return tonumber(redis.call('HGET', K['due'], id) or '0') or 0
end

local function reindex_pools(id, old, new, os, ns, ctx)
  local old_timed = os ~= nil and os.timed
  local new_timed = ns ~= nil and ns.timed
  local old_due = old_timed and stored_due(id) or 0
  if new_timed and ctx.due_ms ~= nil then
    redis.call('HSET', K['due'], id, ctx.due_ms)
  elseif old_timed and not new_timed then
    redis.call('HDEL', K['due'], id)
  end
  local new_due = 0
  if new_timed then new_due = ctx.due_ms or stored_due(id) end

  local old_pool, old_member = nil, nil
  if os ~= nil then old_pool, old_member = pool_of(id, old, os, ctx.now, old_due) end
  local new_pool, new_member = nil, nil
  if ns ~= nil then new_pool, new_member = pool_of(id, new, ns, ctx.now, new_due) end

  local moved = old_pool ~= new_pool or old_member ~= new_member
  if old_timed and old_pool ~= nil and old_pool ~= K['leases'] then
    -- an unowned timed task sits in `waiting` or in its ready pool (with its
    -- due time in `promoted`), depending on when it was placed: clear all
    redis.call('ZREM', K['waiting'], id)
    redis.call('ZREM', K['promoted'], id)
    local ready_pool, ready_member = pool_of(id, old, os, math.huge, 0)
    leave_ready(id, ready_pool, ready_member)
    moved = true
  elseif moved and old_pool ~= nil then
    if old_pool == K['leases'] or old_pool == K['waiting'] then
      redis.call('ZREM', old_pool, old_member)
    else
      leave_ready(id, old_pool, old_member)
    end
  end
  if moved and new_pool ~= nil then
    if new_pool == K['leases'] then
      redis.call('ZADD', K['leases'], ctx.expiry_ms or 0, id)
    elseif new_pool == K['waiting'] then
      redis.call('ZADD', K['waiting'], new_due, id)
      use_feature('waiting')
      if ctx.next_due == nil or new_due < ctx.next_due then ctx.next_due = new_due end
    else
      join_ready(id, new, new_pool, new_member, ctx)
      if new_timed then
        redis.call('ZADD', K['promoted'], new_due, id)
        use_feature('promoted')
      end
    end
  elseif not moved and new_pool == K['leases'] and ctx.expiry_ms ~= nil then
    redis.call('ZADD', K['leases'], ctx.expiry_ms, id)
  end

  -- `holders` says whom the owners count of an owned task was given to: the
  -- count follows it, not the old record, which something else may have changed
  local new_owner = new_pool == K['leases'] and ns.owner or nil
  if old_pool == K['leases'] or new_owner ~= nil then
    local holder = nil
    if old_pool == K['leases'] then holder = holder_of(redis.call('HGET', K['holders'], id)) end
    if holder ~= new_owner then
      if holder ~= nil then count_owner(holder, -1, ctx) end
      if new_owner ~= nil then
        count_owner(new_owner, 1, ctx)
        -- since when: unknown to repair, which indexes the records anew
        local since = ctx.quiet and '' or string.format('%d', ctx.now)
        redis.call('HSET', K['holders'], id, since .. ':' .. new_owner)
        -- a claim takes a slot of each capped value (§3.15; the search said
        -- whether a cap is declared, other scripts ask features)
        local capped = ctx.capped
        if capped == nil then capped = features()['caps'] == true end
        if holder == nil and capped then caps().hold(id, new) end
      else
        redis.call('HDEL', K['holders'], id)
        caps().give(id, old, ctx)
      end
    end
  end

  -- retention finds old tasks in `ready` by their ids; the others are listed
  -- here, but for halted ones (in `halted-since`, by when they halted)
  local old_retained = os ~= nil and os.retained and old_pool ~= K['ready'] and not os.halted
  local new_retained = ns ~= nil and ns.retained and new_pool ~= K['ready'] and not ns.halted
  if old_retained ~= new_retained then
    if new_retained then redis.call('ZADD', K['retention'], 0, id) else redis.call('ZREM', K['retention'], id) end
  end
end

-- repair_pool puts a task back where its record says it belongs among the
-- pools (ready, waiting, leases), whatever the indexes said: an operation met
-- an entry that disagrees with the record, which something else changed
-- (docs/semantics.md §1.10). An owned record found elsewhere gets a lease that has
-- ended, so expire revokes it; its owners count follows `holders`.
local function repair_pool(id, task, ctx)
  local shape = shape_of(task)
  leave_ready(id, K['ready'], id)
  leave_ready(id, K['ready-cron'], id)
  for _, key in ipairs({ K['waiting'], K['promoted'], K['leases'], K['retention'] }) do
    redis.call('ZREM', key, id)
  end
  drop_unicast(id)
  local holder = holder_of(redis.call('HGET', K['holders'], id))
  if holder then
    redis.call('HDEL', K['holders'], id)
    count_owner(holder, -1, ctx)
    caps().give(id, nil, ctx)
  end
  local expiry_ms = ctx.expiry_ms
  ctx.expiry_ms = 0
  reindex_pools(id, nil, task, nil, shape, ctx)
  ctx.expiry_ms = expiry_ms
end

-- the leaf and meta bookkeeping of a change (only for queues with roots or
-- listed meta keys: one call tells, in the common case that there are none)
local function reindex_leaves(id, old, new, os, ns, ctx)
  local meta_changed = old == nil or new == nil or not same_map(old.meta, new.meta)
  local old_leaf = os ~= nil and os.leaf
  local new_leaf = ns ~= nil and ns.leaf
  local leaf_changed = (old_leaf or new_leaf) and not (old_leaf and new_leaf and same_map(old.root, new.root))
  if not meta_changed and not leaf_changed then return end
  if ctx.rooted == nil then ctx.rooted = redis.call('EXISTS', K['roots'], K['watched']) > 0 end
  if not ctx.rooted and not new_leaf then return end
  if leaf_changed and old_leaf then roots().unregister(id, old) end
  if meta_changed then
    if old ~= nil then roots().index_meta(id, old.meta, false) end
    if new ~= nil then roots().index_meta(id, new.meta, true) end
  end
  if leaf_changed and new_leaf then
    roots().register(id, new)
    ctx.rooted = true
  end
  if meta_changed and new ~= nil then roots().announce(id, new.meta) end
end

-- note_event: what a change means for `tail` (the `events` stream, written
-- by finish): created / emitted (a template's child), claimed, completed (a
-- delete), removed (retention, an obsolete leaf), revoked (expire), requeued
-- (a delete that pages or defers), released (a release or a reset). ctx.op
-- names the script's kind where the change alone does not tell.
local function note_event(id, old, new, ctx)
  if ctx.quiet then return end
  local kind, worker
  if old == nil then
    if new == nil then return end
    kind = template_of(new) ~= nil and 'emitted' or 'created'
  elseif new == nil then
    kind, worker = ctx.op == 'delete' and 'completed' or 'removed', owner_of(old)
  else
    local was, is = owner_of(old), owner_of(new)
    if was == is then return end
    if is ~= nil then
      kind, worker = 'claimed', is
    else
      worker = was
      if ctx.op == 'expire' then kind = 'revoked'
      elseif ctx.op == 'delete' then kind = 'requeued'
      else kind = 'released' end
    end
  end
  ctx.events[#ctx.events + 1] = { kind, id, worker or '' }
end

local function reindex(id, old, new, ctx)
  note_event(id, old, new, ctx)
  local os = old ~= nil and shape_of(old) or nil
  local ns = new ~= nil and shape_of(new) or nil

  -- a change of core alone (a claim, a renewal, a revocation, a release, a
  -- reset: the other maps are the same tables) touches only the pools, unless
  -- it halts or resumes the task
  if os ~= nil and ns ~= nil and os.halted == ns.halted and ctx.tick_p1_ms == nil
    and old.meta == new.meta and old.root == new.root and old.gate == new.gate
    and old.node == new.node and old.cron == new.cron then
    reindex_pools(id, old, new, os, ns, ctx)
    return
  end

  reindex_leaves(id, old, new, os, ns, ctx)

  local old_gate = os ~= nil and os.gate_template
  local new_gate = ns ~= nil and ns.gate_template
  if (old_gate or new_gate) and not (old_gate and new_gate and same_keys(old.gate, new.gate)) then
    if old_gate then links().index_gate_template(id, old.gate, false) end
    if new_gate then links().index_gate_template(id, new.gate, true) end
  end

  -- halted tasks are listed for the statistics and the circuit-breaker listing
  local old_halted = os ~= nil and os.halted
  local new_halted = ns ~= nil and ns.halted
  if old_halted ~= new_halted then
    if new_halted then redis.call('ZADD', K['halted'], 0, id) else redis.call('ZREM', K['halted'], id) end
    -- a stored task the circuit breaker now holds (for the metrics; a new or
    -- re-indexed record is not a change of state)
    if new_halted and os ~= nil then ctx.halted = ctx.halted + 1 end
  end

  -- halted tasks retention may delete, since when (haltedRetention; they
  -- are not in `retention`); NX: repair, which indexes the records anew, keeps it
  local old_since = os ~= nil and os.halted and os.retained
  local new_since = ns ~= nil and ns.halted and ns.retained
  if old_since ~= new_since then
    if new_since then
      redis.call('ZADD', K['halted-since'], 'NX', string.format('%d', ctx.now), id)
    else
      redis.call('ZREM', K['halted-since'], id)
    end
  end

  local old_broadcast = os ~= nil and os.broadcast
  local new_broadcast = ns ~= nil and ns.broadcast
  if old_broadcast ~= new_broadcast then
    if new_broadcast then
      redis.call('ZADD', K['broadcast'], sequence_of(id), id)
      use_feature('broadcast')
      ctx.broadcast = true -- every engine may take it
    else
      redis.call('ZREM', K['broadcast'], id)
    end
  end

  local old_template = os ~= nil and os.child_of or nil
  local new_template = ns ~= nil and ns.child_of or nil
  if old_template ~= new_template then
    if new_template ~= nil then redis.call('ZADD', K['children'], 0, new_template .. id) end
    if old_template ~= nil then
      redis.call('ZREM', K['children'], old_template .. id)
      links().child_gone(old_template)
    end
  end

  if ns ~= nil and ns.cron_template then
    if ctx.tick_p1_ms ~= nil then
      redis.call('ZADD', K['templates'], ctx.tick_p1_ms, id)
      if ctx.next_tick == nil or ctx.tick_p1_ms < ctx.next_tick then ctx.next_tick = math.max(ctx.tick_p1_ms, 0) end
    elseif os == nil or not os.cron_template then
      redis.call('ZADD', K['templates'], '-inf', id) -- no tick+1 known: overdue
    end
  elseif os ~= nil and os.cron_template then
    redis.call('ZREM', K['templates'], id)
    redis.call('ZREM', K['ticker-check'], id)
  end

  reindex_pools(id, old, new, os, ns, ctx)
end

-- release_unique: a task created with `unique` that leaves the queue gives its
-- key back, or keeps it held for its ttl (include/unique.lua)
local function release_unique(id, key, now)
  local entry = redis.call('HGET', K['unique'], key)
  if not entry or string.sub(entry, 1, ID_LENGTH) ~= id then return end -- another task holds it now
  local ttl = tonumber(string.sub(entry, ID_LENGTH + 2)) or 0
  if ttl > 0 then
    redis.call('ZADD', K['unique-expiry'], now + ttl, key)
  else
    redis.call('HDEL', K['unique'], key)
  end
end

-- remove_task deletes a stored task and all its index entries. Its waiters
-- hear of it: with its outcome (the script records one and sets ctx.finished
-- to its id), or that it left the queue without one.
local function remove_task(id, task, ctx)
  reindex(id, task, nil, ctx)
  redis.call('HDEL', K['tasks'], id)
  redis.call('HDEL', K['attempts'], id)
  redis.call('HDEL', K['attempt-log'], id)
  local unique_key = task.core ~= nil and task.core[LABEL_UNIQUE] or nil
  if unique_key ~= nil then release_unique(id, unique_key, ctx.now) end
  if ctx.finished ~= id then redis.call(SIGNAL_PUBLISH, K['watch'] .. ':' .. id, '{"r":1}') end
  -- tasks held after it that its completion did not release (it left the
  -- queue otherwise) are dropped; cancel records theirs as cancelled first
  if ctx.followers == nil then ctx.followers = redis.call('EXISTS', K['followers']) == 1 end
  if ctx.followers then
    local members = redis.call('ZRANGEBYLEX', K['followers'], '[' .. id .. '\0', '[' .. id .. '\0\255', 'LIMIT', 0, 100)
    for _, member in ipairs(members) do
      local follower = string.sub(member, #id + 2)
      redis.call('ZREM', K['followers'], member)
      redis.call('HDEL', K['held'], follower)
      redis.call(SIGNAL_PUBLISH, K['watch'] .. ':' .. follower, '{"r":1}')
    end
  end
end

-- candidates counts the tasks of the share gate's n (docs/semantics.md §3.2 phase 3),
-- as a search with this clock would: those promoted only by a later clock
-- aside, those due but not yet promoted included
local function candidates(now)
  return redis.call('ZCARD', K['ready']) + redis.call('ZCARD', K['ready-cron']) + redis.call('ZCARD', K['ready-uni'])
    + redis.call('ZCARD', K['ready-prio']) + redis.call('ZCARD', K['leases']) + redis.call('ZCOUNT', K['waiting'], '-inf', now)
    - redis.call('ZCOUNT', K['promoted'], '(' .. now, '+inf')
end

-- wake_slots unparks a slot for each task that became claimable, one whose
-- worker the share gate lets take one more task (none while the queue is
-- paused); returns their keys
local function wake_slots(ctx)
  if #ctx.claimable == 0 or redis.call('EXISTS', K['parked-slots']) == 0 then return {} end
  -- a paused queue hands out nothing: its slots wait for resume (pause.lua)
  if features()['paused'] and redis.call('EXISTS', K['paused']) == 1 then return {} end
  local n = nil -- counted when first needed
  local granted = {}
  local function may_take(worker)
    local own, workers, before = share_inputs(worker, js_key(worker), ctx)
    own = own + (granted[worker] or 0)
    -- alone among the owners and owning nothing, its share is every
    -- candidate, and the task that woke it is one: no need to count them
    if workers == 1 and own == 0 then
      granted[worker] = 1
      return true
    end
    n = n or candidates(ctx.now)
    local share = math.floor(n / workers)
    if before < n % workers then share = share + 1 end
    if share - own <= 0 then return false end
    granted[worker] = (granted[worker] or 0) + 1
    return true
  end
  local slots = {}
  for _, joined in ipairs(ctx.claimable) do
    local slot_key = parking().take(joined.target, joined.filter_ids, ctx.now, may_take)
    if slot_key ~= nil then slots[#slots + 1] = slot_key end
    if parking().exhausted() then break end
  end
  return slots
end

-- finish ends every script that changes tasks: it writes the owners counts
-- and tells workers about work: one message per script with the parked slots
-- it woke (s: `<worker>\0<slot>` each), whether a broadcast task was stored
-- (a: every worker may take it), the earliest due time of work that becomes
-- claimable later (d), and the earliest tick of a template stored or
-- advanced (t)
local function finish(ctx)
  write_counts(ctx)
  local slots = wake_slots(ctx)
  ctx.claimable = {}
  if #slots == 0 and not ctx.broadcast and ctx.next_due == nil and ctx.next_tick == nil then return end
  local message = { d = ctx.next_due, t = ctx.next_tick }
  if #slots > 0 then message.s = slots end
  if ctx.broadcast then message.a = 1 end
  redis.call(SIGNAL_PUBLISH, K['signal'], cjson.encode(message))
end
