-- caps: concurrency caps (docs/semantics.md §3.15), built on first use.
-- `caps`: meta key -> most tasks of one value owned at once ('' -> most tasks
-- owned at once in the whole queue: that count is ZCARD `owned`).
-- `cap-counts`: `<meta key>\0<value>` -> how many tasks of the value are
-- owned; `cap-holders`: id of an owned task -> JSON list of the cap-counts
-- fields it holds a slot in. A slot is taken where a claim adds the task to
-- `owned` and given back wherever `owned` loses it, so every way
-- ownership ends (and expire's revocation after a crash) gives it back.
-- The rate limits (docs/semantics.md §3.16) are in the same module, below.
--- @include "features"
--- @include "filters"
--- @include "task"
--- @include "has"

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

  -- a count of the hash `key`'s field, read once a call: `seen` keeps it
  local function stored_count(seen, key, field)
    local count = seen[field]
    if count == nil then
      count = tonumber(redis.call('HGET', key, field) or '0')
      seen[field] = count
    end
    return count
  end

  local function count_of(field)
    return stored_count(counts, K['cap-counts'], field)
  end

  -- whole_full: the queue owns as many tasks as its whole-queue cap allows
  function M.whole_full()
    local whole = M.declared().whole
    return whole ~= nil and redis.call('ZCARD', K['owned']) >= whole
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
          -- the value's lane has room for one more (include/pools.lua refill_lanes)
          if used['aside-of'] then M.note_refill(field, ctx) end
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
  function M.rate_count(task, now, ctx)
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
    M.prune_windows(now, 4, ctx)
  end

  -- prune_windows drops up to `most` windows that ended (their values'
  -- lanes get room: include/pools.lua refill_lanes); returns whether ended
  -- ones are left
  function M.prune_windows(now, most, ctx)
    local ended = redis.call('ZRANGEBYSCORE', K['rate-expiry'], '-inf', now, 'LIMIT', 0, most)
    local lanes = features()['aside-of']
    for _, field in ipairs(ended) do
      redis.call('ZREM', K['rate-expiry'], field)
      redis.call('HDEL', K['rate-windows'], field)
      windows[field] = nil
      if lanes and field ~= '' then M.note_refill(field, ctx) end
    end
    return #ended == most and #redis.call('ZRANGEBYSCORE', K['rate-expiry'], '-inf', now, 'LIMIT', 0, 1) > 0
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


  -- Lanes (docs/semantics.md §3.17): each value of a meta key with a cap or a
  -- rate limit (a lane field `<meta key>\0<value>`, as in `cap-counts` and
  -- `rate-windows`) keeps in the ready pools at most as many of its tasks as
  -- it may still have claimed (its room); the others wait in `aside` under
  -- the field, and a value that is full or whose window is closed has none
  -- left in the ready pools, so a claim never walks past them.
  -- `lane-ready`: field -> how many of its tasks are in the ready pools.
  local lanes_declared = nil -- { { key, most (cap) or nil, rate { '', limit, window } or nil }, ... }
  local readies = {} -- lane-ready counts read or written this call

  -- lanes: the meta keys that have a keyed cap or a keyed rate limit, by key
  function M.lanes()
    if lanes_declared ~= nil then return lanes_declared end
    lanes_declared = {}
    local used = features()
    local by_key = {}
    local function entry(key)
      if by_key[key] == nil then
        by_key[key] = { key }
        lanes_declared[#lanes_declared + 1] = by_key[key]
      end
      return by_key[key]
    end
    if used['caps'] then
      for _, cap in ipairs(M.declared().keys) do entry(cap[1])[2] = cap[2] end
    end
    if used['rates'] then
      for _, rate in ipairs(M.rates().keys) do entry(rate[1])[3] = rate end
    end
    table.sort(lanes_declared, function(a, b) return bytes_less(a[1], b[1]) end)
    return lanes_declared
  end

  -- lanes_of: the lanes of the task's values: { { field, lane }, ... }
  function M.lanes_of(task)
    local meta, list = task.meta or {}, {}
    for _, lane in ipairs(M.lanes()) do
      local value = meta[lane[1]]
      if value ~= nil then list[#list + 1] = { lane[1] .. '\0' .. value, lane } end
    end
    return list
  end

  -- lane_blocked: the value may not be claimed now (full, or its window closed)
  function M.lane_blocked(field, lane, now)
    if lane[2] ~= nil and count_of(field) >= lane[2] then return true end
    if lane[3] ~= nil and closed_until(field, lane[3][2], now) ~= nil then return true end
    return false
  end

  function M.ready_of(field)
    return stored_count(readies, K['lane-ready'], field)
  end

  function M.count_ready(field, delta)
    local count = redis.call('HINCRBY', K['lane-ready'], field, delta)
    if count <= 0 then
      redis.call('HDEL', K['lane-ready'], field)
      count = 0
    end
    readies[field] = count
  end

  -- lane_room: how many more of the value's tasks may join the ready pools:
  -- what its cap and its window still allow, less those there already
  function M.lane_room(field, lane, now)
    local room = math.huge
    if lane[2] ~= nil then room = lane[2] - count_of(field) end
    if lane[3] ~= nil then
      local window = window_of(field)
      local claims = 0
      if window[1] > now then claims = window[2] < 0 and lane[3][2] or window[2] end
      room = math.min(room, lane[3][2] - claims)
    end
    return room - M.ready_of(field)
  end

  -- note_refill: the lane of `field` may have room: include/pools.lua
  -- refill_lanes moves its first tasks back before the script ends
  function M.note_refill(field, ctx)
    if ctx == nil then return end
    if ctx.refill == nil then ctx.refill = {} end
    if ctx.refill[field] == nil then
      ctx.refill[field] = true
      ctx.refill[#ctx.refill + 1] = field
    end
  end

  -- paused: the queries paused (engine.pause(query)): { { id, query }, ... }
  local paused_list = nil
  function M.paused()
    if paused_list ~= nil then return paused_list end
    paused_list = {}
    if not features()['paused-queries'] then return paused_list end
    local flat = redis.call('HGETALL', K['paused-queries'])
    for index = 1, #flat, 2 do
      local json = string.match(flat[index + 1], '^%d*%z(.*)$')
      local query = json and decode_task(json) or nil
      if query ~= nil then paused_list[#paused_list + 1] = { flat[index], query } end
    end
    return paused_list
  end

  -- paused_field: the aside field of a paused query the task matches, or nil
  function M.paused_field(task)
    for _, paused in ipairs(M.paused()) do
      if matches(task, paused[2]) then return '\0' .. paused[1] end
    end
    return nil
  end

  caps_module = M
  return M
end
