-- pools: where a task that may be claimed waits (`leases` when owned,
-- `waiting` until due, else a ready pool), and moving a task into and out of
-- the ready pools together with the pools of the filters it matches. reindex
-- (include/reindex.lua) moves tasks with these; search reads pool_of and
-- stored_due to check what it picks against its record.
--- @include "task"
--- @include "features"
--- @include "filters"

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
