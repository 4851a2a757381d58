-- unique: the keys of tasks created with `unique` (docs/semantics.md §3.11).
-- `unique` maps each key held to `<id>\0<ttl ms>`: the task that holds it
-- while it lives (its core Label.Unique names the key). Once that task left
-- the queue (include/remove-task.lua release_unique), a key with a ttl stays
-- held until its score in `unique-expiry`; expire drops the ended holds, a
-- batch at a time.
--- @include "id-length"
--- @include "task"
--- @include "reindex"

-- unique_holder: the id of the task that holds a key, and whether that task
-- is still in the queue; nil when the key is free (its hold is dropped here
-- when it ended, or when its task left the queue by a way that did not give
-- the key back, such as a record something else deleted)
local function unique_holder(key, now)
  local entry = redis.call('HGET', K['unique'], key)
  if not entry then return nil end
  local id = string.sub(entry, 1, ID_LENGTH)
  local free_at = redis.call('ZSCORE', K['unique-expiry'], key)
  if free_at then
    if tonumber(free_at) > now then return id, false end
  elseif redis.call('HEXISTS', K['tasks'], id) == 1 then
    return id, true
  end
  redis.call('HDEL', K['unique'], key)
  redis.call('ZREM', K['unique-expiry'], key)
  return nil
end

-- unique_create: what a create with `unique` does before it stores a new
-- task: 'skipped <id>' when the key is held (mode skip; a holder a worker
-- owns, the circuit breaker holds, or that ended), 'replaced <id>' when mode
-- replace replaced the queued task that holds it with this one (it keeps its
-- id and cycles), nil when the key is free. The replaced holder is indexed
-- with this create's due time and tick (debounce): due_ms, tick_p1_ms
-- (numbers or nil) are the create's.
local function unique_create(mode, ttl, task, ctx, due_ms, tick_p1_ms)
  local key = task.core[LABEL_UNIQUE]
  local id, live = unique_holder(key, ctx.now)
  if id == nil then return nil end
  if mode ~= 'replace' or not live then return 'skipped ' .. id end
  local holder = load_task(id)
  if holder == nil or owner_of(holder) ~= nil or is_halted(holder) then return 'skipped ' .. id end
  task.core[LABEL_OBJECT] = id
  task.core[LABEL_CYCLES] = holder.core[LABEL_CYCLES]
  store_task(id, task)
  ctx.due_ms, ctx.tick_p1_ms = due_ms, tick_p1_ms
  reindex(id, holder, task, ctx)
  ctx.due_ms, ctx.tick_p1_ms = nil, nil
  redis.call('HSET', K['unique'], key, id .. '\0' .. ttl)
  return 'replaced ' .. id
end

-- unique_hold: a new task holds its key (and for ttl ms once it ended)
local function unique_hold(task, id, ttl)
  redis.call('HSET', K['unique'], task.core[LABEL_UNIQUE], id .. '\0' .. ttl)
  return 'created ' .. id
end
