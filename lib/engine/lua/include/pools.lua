-- pools: where a task that may be claimed waits (`leases` when owned,
-- `waiting` until due, else a ready pool), and moving a task into and out of
-- the ready pools together with the pools of the filters it matches. reindex
-- (include/reindex.lua) moves tasks with these; search reads pool_of and
-- stored_due to check what it picks against its record.
--- @include "task"
--- @include "features"
--- @include "filters"
--- @include "caps"
--- @include "step"

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

-- (defined below; aside() moves tasks with them)
local join_ready, leave_ready

-- aside: the claimable tasks set aside (docs/semantics.md §3.17), built on
-- first use. `aside` holds `<field>\0<priority tag><id>`, by field then in
-- claim order (the tag sorts as in the pools); `aside-of` says, for each
-- task in `aside`, its member there (`a<member>`), and for each laned task in
-- a ready pool, the lane fields it is counted in (`r<JSON list>`), so that
-- a task leaving either is found without its record. A field is a lane
-- (`<meta key>\0<value>` of a cap or a rate limit: include/caps.lua) or a
-- paused query (`\0<query id>`).
local aside_module = nil
local function aside()
  if aside_module ~= nil then return aside_module end
  local M = {}
  -- how many tasks the refills of one script move back at most (searches go
  -- on with the rest through `aside-refill`, a few lanes a search)
  local REFILL_MOST = 64
  local REFILL_BEFORE_CLOCK = 8

  -- head: the first member of a field in `aside`, or nil (members of a
  -- field whose value goes on with a NUL and more are skipped)
  function M.head(field)
    local prefix = field .. '\0'
    local members = redis.call('ZRANGEBYLEX', K['aside'], '[' .. prefix, '[' .. prefix .. '\255', 'LIMIT', 0, 4)
    for _, member in ipairs(members) do
      if #member == #prefix + 26 + #member_tag(member) then return member end
    end
    return nil
  end

  -- reason: why the task, joining ready pool `pool`, waits aside instead:
  -- the field, and whether it only waits for its lane's room (then pooled
  -- filters keep it: a search with one may still claim it); nil and the
  -- task's lanes when it joins the pool. head_of: the lane it is first of
  -- (moved back for it); force: it joins whatever that lane's room
  function M.reason(task, pool, ctx, head_of, force)
    local c = caps()
    local paused = c.paused_field(task)
    if paused ~= nil then return paused, false, nil end
    if pool == K['ready-uni'] then return nil, nil, nil end
    local lanes = c.lanes_of(task)
    if #lanes == 0 then return nil, nil, nil end
    local now = ctx.now
    for _, each in ipairs(lanes) do
      if c.lane_blocked(each[1], each[2], now) then return each[1], false, nil end
    end
    for _, each in ipairs(lanes) do
      local first = each[1] == head_of
      if not (first and force) and c.lane_room(each[1], each[2], now) <= 0 then return each[1], true, nil end
      if not first and M.head(each[1]) ~= nil then return each[1], true, nil end -- behind the older ones
    end
    return nil, nil, lanes
  end

  -- set: the task waits aside under `field` instead of ready pool `pool`
  -- (`member` its member there); a task that leaves `ready` is listed for
  -- retention (expire finds the others there already)
  function M.set(id, task, pool, member, field, keep)
    local tag = pool == K['ready-prio'] and string.sub(member, 1, -27) or ''
    local entry = field .. '\0' .. tag .. id
    redis.call('ZADD', K['aside'], 0, entry)
    redis.call('HSET', K['aside-of'], id, 'a' .. entry)
    use_feature('aside-of')
    if pool == K['ready'] then redis.call('ZADD', K['retention'], 0, id) end
    if keep then filters().joined(id, task, '', tag) end
  end

  -- mark: a laned task joined its ready pool: counted in its lanes
  function M.mark(id, lanes)
    local fields = {}
    for index, each in ipairs(lanes) do
      fields[index] = each[1]
      caps().count_ready(each[1], 1)
    end
    redis.call('HSET', K['aside-of'], id, 'r' .. cjson.encode(fields))
    use_feature('aside-of')
  end

  -- leave: the task leaves `aside`, or its ready pool (its lanes get the
  -- room back); `pool` is the ready pool its record names
  function M.leave(id, pool, ctx)
    local mark = redis.call('HGET', K['aside-of'], id)
    if not mark then return end
    redis.call('HDEL', K['aside-of'], id)
    if string.sub(mark, 1, 1) == 'a' then
      redis.call('ZREM', K['aside'], string.sub(mark, 2))
      if pool == K['ready'] then redis.call('ZREM', K['retention'], id) end
      return
    end
    for _, field in ipairs(cjson.decode(string.sub(mark, 2))) do
      caps().count_ready(field, -1)
      caps().note_refill(field, ctx)
    end
  end

  -- is_aside: whether the task waits in `aside` (a pooled filter met it)
  function M.is_aside(id)
    local mark = redis.call('HGET', K['aside-of'], id)
    return mark ~= false and string.sub(mark, 1, 1) == 'a'
  end

  -- back: the task of an `aside` member joins its ready pool again (or
  -- waits aside for another reason); head_of, force: as reason's
  function M.back(entry, ctx, head_of, force)
    local id = string.sub(entry, -26)
    redis.call('ZREM', K['aside'], entry)
    redis.call('HDEL', K['aside-of'], id)
    local task = load_task(id)
    if task == nil then return end -- gone: expire's sweeps and repair see to it
    local pool, member = pool_of(id, task, shape_of(task), math.huge, 0)
    if pool == nil or pool == K['leases'] or pool == K['waiting'] then return end -- repair() places it
    if pool == K['ready'] then redis.call('ZREM', K['retention'], id) end
    join_ready(id, task, pool, member, ctx, head_of, force)
  end

  -- fill: the first tasks of a lane join their ready pools while it has room
  function M.fill(field, lane, ctx)
    local c = caps()
    if ctx.refill_left == nil then ctx.refill_left = REFILL_MOST end
    while ctx.refill_left > 0 do
      if c.lane_blocked(field, lane, ctx.now) or c.lane_room(field, lane, ctx.now) <= 0 then return end
      local head = M.head(field)
      if head == nil then return end
      ctx.refill_left = ctx.refill_left - 1
      M.back(head, ctx, field, false)
      -- a task back costs several commands and a decoded record: past a
      -- few, the step's time bounds the rest too (include/step.lua)
      if REFILL_MOST - ctx.refill_left >= REFILL_BEFORE_CLOCK and step_spent() then ctx.refill_left = 0 end
    end
    if M.head(field) ~= nil then
      redis.call('ZADD', K['aside-refill'], 0, field)
      use_feature('aside-refill')
    end
  end

  local function lane_of(field)
    local key = string.match(field, '^([^%z]+)%z')
    if key == nil then return nil end
    for _, lane in ipairs(caps().lanes()) do
      if lane[1] == key then return lane end
    end
    return nil
  end

  -- refill: the lanes noted (caps().note_refill) get their room filled
  function M.refill(ctx)
    while ctx.refill ~= nil do
      local list = ctx.refill
      ctx.refill = nil
      for _, field in ipairs(list) do
        local lane = lane_of(field)
        if lane ~= nil then M.fill(field, lane, ctx) end
      end
    end
  end

  -- go_on: a few lanes a step left with room to fill (`aside-refill`)
  function M.go_on(most, ctx)
    for _, field in ipairs(redis.call('ZRANGE', K['aside-refill'], 0, most - 1)) do
      redis.call('ZREM', K['aside-refill'], field)
      caps().note_refill(field, ctx)
    end
    M.refill(ctx)
  end

  -- pass: a search passed over a laned task in a ready pool without taking
  -- it (a filter, a declined task): the next task of each of its lanes
  -- that may be claimed joins too, so a walk that passes a lane goes on
  -- into it as it would if the lane's tasks were all in the pool
  function M.pass(id, ctx)
    local mark = redis.call('HGET', K['aside-of'], id)
    if not mark or string.sub(mark, 1, 1) ~= 'r' then return end
    for _, field in ipairs(cjson.decode(string.sub(mark, 2))) do
      local lane = lane_of(field)
      if lane ~= nil and not caps().lane_blocked(field, lane, ctx.now) then
        local head = M.head(field)
        if head ~= nil then
          M.back(head, ctx, field, true)
          ctx.lane_joined = (ctx.lane_joined or 0) + 1
        end
      end
    end
  end

  -- walked: the claim walk met the task in ready pool `placed` (member
  -- `member`): false when it may not take it (set aside now, or passed over
  -- as before for a unicast task), 'stale' for an entry of a pooled filter
  -- whose task waits aside for a reason it still has, nil when it may take it
  function M.walked(id, task, placed, member, ctx)
    local c = caps()
    local waiting = features()['aside-of'] and M.is_aside(id)
    local paused = c.paused_field(task)
    if paused ~= nil then
      if waiting then return 'stale' end
      leave_ready(id, placed, member, ctx)
      M.set(id, task, placed, member, paused, false)
      return false
    end
    if placed == K['ready-uni'] then return nil end -- caps and rates pass it over (search)
    for _, each in ipairs(c.lanes_of(task)) do
      if c.lane_blocked(each[1], each[2], ctx.now) then
        if waiting then return 'stale' end
        leave_ready(id, placed, member, ctx)
        M.set(id, task, placed, member, each[1], false)
        return false
      end
    end
    return nil
  end

  -- sets the state of a bounded walk over the ready pools for aside.lua
  aside_module = M
  return M
end

-- join_ready puts a task in a ready pool: the pool, its unicast target, the
-- pools of the filters it matches, and a note for finish to wake a slot; or,
-- in a queue with paused queries or lanes, in `aside` when it may not be
-- claimed now (aside().reason; head_of, force: as there)
join_ready = function(id, task, pool, member, ctx, head_of, force)
  local used = features()
  local lanes = nil
  if used['paused-queries'] or used['caps'] or used['rates'] then
    local field, keep
    field, keep, lanes = aside().reason(task, pool, ctx, head_of, force)
    if field ~= nil then
      aside().set(id, task, pool, member, field, keep)
      return
    end
  end
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
  if lanes ~= nil then aside().mark(id, lanes) end
  ctx.claimable[#ctx.claimable + 1] = { target = target, filter_ids = filters().joined(id, task, target, tag) }
end

-- leave_ready takes a task out of a ready pool and the pools of its filters
-- (and out of `aside` when it waits there, its lanes told when it leaves a
-- ready pool: ctx, or nil)
leave_ready = function(id, pool, member, ctx)
  redis.call('ZREM', pool, member)
  local target, tag = '', ''
  if pool == K['ready-uni'] then
    target = string.sub(member, 1, -28)
    redis.call('HDEL', K['targets'], id)
  elseif pool == K['ready-prio'] then
    tag = string.sub(member, 1, -27)
  end
  filters().left(id, target, tag)
  if features()['aside-of'] then aside().leave(id, pool, ctx) end
end

-- drop_unicast removes a task from `ready-uni`, under the target `targets`
-- says (the record may say something else, or nothing)
local function drop_unicast(id, ctx)
  local target = redis.call('HGET', K['targets'], id)
  if target then leave_ready(id, K['ready-uni'], target .. '\0' .. id, ctx) end
end
