-- filters: the queries workers search with (their handlers' labels), built
-- on first use. A filter the queue knows gets a wake-up when a task it matches
-- becomes claimable; a filter with a pool (`filter-pools`, made for filters
-- that match few tasks) also keeps its matching tasks in `ready-filtered`, so
-- its search is a lookup instead of a walk.
--- @include "task"
--- @include "has"

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
