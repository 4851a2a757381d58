-- create: store new tasks (docs/semantics.md §3.1), for create.lua and
-- create-many.lua.
--- @include "features"
--- @include "task"
--- @include "owners"
--- @include "roots"
--- @include "reindex"
--- @include "finish"
--- @include "wake-one"
--
-- The lean path stores a plain task (an `any` task without cron, gate, root
-- or `after`, not owned, not timed: the engine decides, lib/engine/create.ts
-- leanCreatable) in a queue whose features change nothing for it: the
-- record the engine encoded goes into `tasks` and the id into `ready`, and
-- nothing is decoded. That is what reindex writes for such a task, when the
-- queue has no roots or watched meta keys (reindex_leaves), no filters (the
-- wake-ups and pools of join_ready), no events stream to add to (write_counts), and no cap, rate limit or paused
-- query (join_ready may set the task aside: docs/semantics.md §3.17). A
-- queue with slots parked on it (any worker's that once waited) also takes
-- the lean store, then wakes a slot as the general path would (wake_new).
-- conformance/create/create-lean.spec.ts compares every key after either
-- path.

-- kept_answer: the answer kept in a `requests` value for this request
-- number, or nil (include/request.lua; read without patterns)
local function kept_answer(kept, number)
  if not kept or string.sub(kept, 1, #number + 1) ~= number .. '|' then return nil end
  local rest = string.sub(kept, #number + 2)
  local bar = string.find(rest, '|', 1, true)
  if bar == nil then return nil end
  return string.sub(rest, bar + 1)
end

-- plain_for_create: none of the features that change what a plain task's
-- create writes is in use
local function plain_for_create()
  return plain_queue('roots', 'watched', 'filters', 'parked-slots', 'events', 'caps', 'rates', 'paused-queries')
end

-- plain_but_parked: a queue that would be plain for a create but for the
-- slots parked on it
local function plain_but_parked()
  return features()['parked-slots'] == true
    and plain_queue('roots', 'watched', 'filters', 'events', 'caps', 'rates', 'paused-queries')
end

-- wake_new wakes parked slots for `count` plain tasks the lean store put in
-- `ready`: what finish does after join_ready noted each claimable (no filter
-- pools to match, no events stream to write: plain_but_parked); one task
-- through wake_one when it can
local function wake_new(now, count)
  if count == 1 and wake_one(now) then return end
  local ctx = new_context(now)
  ctx.untailed = true
  for index = 1, count do ctx.claimable[index] = { target = '', filter_ids = {} } end
  finish(ctx)
end

-- lean_store stores a plain task's record under a new id, and returns the id
local function lean_store(now, record)
  local id = new_id(now)
  redis.call('HSET', K['tasks'], id, record)
  redis.call('ZADD', K['ready'], '0', id)
  return id
end

-- lean_store_many stores `count` plain tasks under new ids, in order, their
-- records in the create_many_plain lists after ARGV[first] (create-many.lua's
-- lean form), and returns the ids joined by ','. One command per key: a
-- command costs the script more than the fields it carries. The ids are
-- consecutive: each is its hundred's id (object_id) with the last two digits
-- put in place, as a string.format costs Redis several concatenations.
local function lean_store_many(now, first, count)
  local number = redis.call('INCRBY', K['sequence'], count) - count
  local digits = { [0] = '0', '1', '2', '3', '4', '5', '6', '7', '8', '9' }
  -- one table, no other a task: id, record, … for HSET, then id, '0', …
  -- for ZADD (after its first score), then id, ',', … for the answer
  local list, head = {}, nil
  for index = 1, count do
    local at = number + index
    local units, hundredth = at % 10, at % 100
    if head == nil or hundredth == 0 then head = string.sub(object_id(now, at), 1, -3) end
    list[2 * index - 1] = head .. digits[(hundredth - units) / 10] .. digits[units]
    list[2 * index] = ARGV[first + (index - 1) * #ARG.create_many_plain + ARG.create_many_plain.record]
  end
  redis.call('HSET', K['tasks'], unpack(list))
  for index = 2, 2 * count, 2 do list[index] = '0' end
  redis.call('ZADD', K['ready'], '0', unpack(list, 1, 2 * count - 1))
  for index = 2, 2 * count, 2 do list[index] = ',' end
  return table.concat(list, '', 1, 2 * count - 1)
end

-- decode_new: a new task from the stored form the engine encoded (the lean
-- arguments, when the general path takes them)
local function decode_new(record)
  local task, named_node = decode_task(record, true)
  if task ~= nil and not named_node then task.node = { [LABEL_METHOD] = METHOD_ANY } end
  return task
end

-- wild_room: whether a new leaf may join or make its group (roots with
-- patterns are capped, include/roots.lua); `made` lists the groups of
-- patterns the caller's earlier leaves make, { [gid] = true, count = n }
local function wild_room(root, made)
  if roots().is_exact(root) then return true end
  local gid = roots().group_of(root)
  if made[gid] or redis.call('HEXISTS', K['roots'], gid) == 1 then return true end
  if redis.call('ZCARD', K['wild-roots']) + made.count >= WILD_ROOTS_MOST then return false end
  made[gid], made.count = true, made.count + 1
  return true
end

-- general_store stores a validated new task through reindex, and returns
-- its id (due_ms, tick_p1_ms: numbers or nil; check_ms: '' or a number)
local function general_store(now, task, due_ms, tick_p1_ms, check_ms, ctx)
  ctx.due_ms, ctx.tick_p1_ms = due_ms, tick_p1_ms
  local id = new_id(now)
  task.core = task.core or {}
  task.core[LABEL_OBJECT] = id
  store_task(id, task)
  reindex(id, nil, task, ctx)
  if check_ms ~= '' then redis.call('ZADD', K['ticker-check'], check_ms, id) end
  ctx.due_ms, ctx.tick_p1_ms = nil, nil
  return id
end
