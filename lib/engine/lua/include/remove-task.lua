-- remove-task: a task leaves the queue: its record and every index entry go
-- (reindex to nothing), its `unique` key is given back (or kept for its ttl),
-- its waiters hear of it and the tasks held after it are dropped.
--- @include "id-length"
--- @include "reindex"

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
