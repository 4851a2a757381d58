-- parking: the idle slots of workers, waiting for work. A slot that found no
-- work parks under each of its filters (`parked`: `<filter id>\0<deadline
-- ms>\0<worker>\0<slot>`, oldest deadline first; '' for a slot without
-- filters), and under its worker (`parked-workers`: `<worker>\0<slot>`);
-- `parked-slots` says where it parked. A task that becomes claimable unparks
-- one slot that may take it and tells that slot (finish). A slot's next search
-- unparks it; a slot whose deadline passed is gone (its worker died) and is
-- dropped where met.
--- @include "features"

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
