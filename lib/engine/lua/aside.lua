#!lua flags=allow-oom
--[[ aside: one bounded step of moving claimable tasks into or out of `aside`
  after a change of the queue's lanes or paused queries (docs/semantics.md §3.17);
  the engine calls it until the cursor it answers is ''.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the aside list of lib/engine/lua/arguments.ts
           operation, by what changed:
             sort    a meta key got its first cap or rate limit: the tasks of
                     the ready pools (not unicast) that have the key join
                     its lanes (each value keeps in the pools as many as its
                     room; the others wait aside)
             pause   a query was paused: the tasks of the ready pools it
                     matches wait aside under it
             refill  a cap or rate limit of a key was raised, or one of the
                     two removed: each value of the key with tasks aside
                     gets its room filled
             drain-key    a key has neither any more: every task aside under
                          its values joins its ready pool again (or waits
                          aside for another reason)
             drain-query  a query was resumed: the same for the tasks aside
                          under it
           subject: the meta key, or the query's id
           cursor: '' to start; else what the last step answered

  Returns  the cursor of the next step, '' when done
  Errors   none
]]
--- @include "task"
--- @include "step"
--- @include "has"
--- @include "owners"
--- @include "pools"
--- @include "caps"
--- @include "finish"

-- most tasks a step moves (each is several writes: the clock is asked every 8)
local STEP_MOST = 256
local operation, subject = ARGV[ARG.aside.operation], ARGV[ARG.aside.subject]
local cursor = ARGV[ARG.aside.cursor]
local ctx = new_context(tonumber(ARGV[ARG.aside.now_ms]))
local next_cursor = ''

-- walk_pools: a step over the ready pools from the cursor (`<pool
-- letter><last member>`), calling act(id, task, pool, member) for each task
-- (`spelled`: the values a query asks, to pass most records undecoded)
local function walk_pools(letters, act, spelled)
  local pools = { a = K['ready'], c = K['ready-cron'], r = K['ready-prio'], u = K['ready-uni'] }
  local letter, last = string.sub(cursor, 1, 1), string.sub(cursor, 2)
  if letter == '' then letter = string.sub(letters, 1, 1) end
  local left = STEP_MOST
  step_spent() -- the clock starts here
  while true do
    local key = pools[letter]
    local from = last == '' and '-' or '(' .. last
    local page = math.min(left, 128)
    local members = redis.call('ZRANGEBYLEX', key, from, '+', 'LIMIT', 0, page)
    for _, member in ipairs(members) do
      left = left - 1
      last = member
      local id = string.sub(member, -26)
      local json = redis.call('HGET', K['tasks'], id)
      local task = json and may_match(json, spelled) and decode_stored(id, json) or nil
      if task ~= nil then act(id, task, key, member) end
      if left <= 0 or (left % 8 == 0 and step_spent()) then return letter .. last end
    end
    if #members < page then
      local at = string.find(letters, letter, 1, true)
      letter, last = string.sub(letters, at + 1, at + 1), ''
      if letter == '' then return '' end
    end
  end
end

if operation == 'sort' then
  local lanes = caps().lanes()
  local laned = false
  for _, lane in ipairs(lanes) do if lane[1] == subject then laned = true end end
  if laned then
    next_cursor = walk_pools('acr', function(id, task, pool, member)
      if task.meta == nil or task.meta[subject] == nil then return end
      local placed = pool_of(id, task, shape_of(task), math.huge, 0)
      if placed ~= pool then return end -- a search puts it where it belongs
      leave_ready(id, pool, member, ctx)
      join_ready(id, task, pool, member, ctx)
    end, {})
  end
  -- nothing became claimable: the tasks that joined again were there already
  ctx.claimable = {}
elseif operation == 'pause' then
  local stored = redis.call('HGET', K['paused-queries'], subject)
  local json = stored and string.match(stored, '^%d*%z(.*)$')
  local query = json and decode_task(json) or nil
  if query ~= nil then
    local field = '\0' .. subject
    next_cursor = walk_pools('acru', function(id, task, pool, member)
      if not matches(task, query) then return end
      local placed = pool_of(id, task, shape_of(task), math.huge, 0)
      if placed ~= pool then return end
      leave_ready(id, pool, member, ctx)
      aside().set(id, task, pool, member, field, false)
    end, spelled_values(query))
  end
  ctx.claimable = {}
elseif operation == 'drain-key' or operation == 'drain-query' then
  local prefix = operation == 'drain-key' and subject .. '\0' or '\0' .. subject .. '\0'
  step_spent() -- the clock starts here
  local left = STEP_MOST
  local phase = string.sub(cursor, 1, 1)
  if phase == '' or phase == 'm' then
    while left > 0 do
      local members = redis.call('ZRANGEBYLEX', K['aside'], '[' .. prefix, '[' .. prefix .. '\255', 'LIMIT', 0, 8)
      if #members == 0 then break end
      for _, entry in ipairs(members) do
        aside().back(entry, ctx)
        left = left - 1
      end
      if step_spent() then break end
    end
    if #redis.call('ZRANGEBYLEX', K['aside'], '[' .. prefix, '[' .. prefix .. '\255', 'LIMIT', 0, 1) > 0 then
      next_cursor = 'm'
    elseif operation == 'drain-key' then
      next_cursor = 'h0'
    end
  elseif phase == 'h' or phase == 'l' then
    -- a key without lanes: the ready tasks are counted in none of its values
    -- any more (`aside-of` marks, then `lane-ready`), a few HSCAN pages a step
    local key = phase == 'h' and K['aside-of'] or K['lane-ready']
    local scan, pages = string.sub(cursor, 2), 0
    repeat
      pages = pages + 1
      local reply = redis.call('HSCAN', key, scan, 'COUNT', 100)
      scan = reply[1]
      for index = 1, #reply[2], 2 do
        local field, value = reply[2][index], reply[2][index + 1]
        if phase == 'l' then
          if string.sub(field, 1, #prefix) == prefix then redis.call('HDEL', key, field) end
        elseif string.sub(value, 1, 1) == 'r' then
          local kept, dropped = {}, false
          for _, lane in ipairs(cjson.decode(string.sub(value, 2))) do
            if string.sub(lane, 1, #prefix) == prefix then dropped = true else kept[#kept + 1] = lane end
          end
          if dropped and #kept == 0 then
            redis.call('HDEL', key, field)
          elseif dropped then
            redis.call('HSET', key, field, 'r' .. cjson.encode(kept))
          end
        end
      end
    until scan == '0' or pages >= STEP_MOST / 100 or step_spent()
    if scan ~= '0' then
      next_cursor = phase .. scan
    elseif phase == 'h' then
      next_cursor = 'l0'
    end
  end
elseif operation == 'refill' then
  local prefix = subject .. '\0'
  local from = cursor == '' and '[' .. prefix or '(' .. cursor .. '\0\255'
  step_spent()
  next_cursor = cursor
  for _ = 1, 64 do
    -- the lanes filled this step moved what a script may (include/pools.lua): the next step goes on
    if ctx.refill_left ~= nil and ctx.refill_left <= 0 then break end
    local member = redis.call('ZRANGEBYLEX', K['aside'], from, '[' .. prefix .. '\255', 'LIMIT', 0, 1)[1]
    if member == nil then
      next_cursor = ''
      break
    end
    local field = string.sub(member, 1, -28 - #member_tag(member))
    caps().note_refill(field, ctx)
    aside().refill(ctx)
    next_cursor = field
    from = '(' .. field .. '\0\255'
    if step_spent() then break end
  end
end

finish(ctx)
return next_cursor
