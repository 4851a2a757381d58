-- outcome: what became of a task that finished: completed (deleted by its
-- owner), failed or timeout (halted by the circuit breaker after a failed
-- attempt), cancelled, removed (deleted with bypass: an operator's delete). A record in `outcomes`, kept until its score in
-- `outcome-expiry` (trimmed by expire, a batch at a time) and capped in count;
-- and a message on the task's watch channel, `{"o": <outcome>}`, for those who
-- wait for it.
--- @include "task"
--- @include "owners"

-- outcome_json writes an outcome: the fields the queue knows, then `fields`,
-- a JSON object text the engine built (result, error, startedAt, log), spliced
-- in as text: a result's numbers reach the reader exactly as the handler gave
-- them (cjson would round them to 14 digits)
local function outcome_json(id, state, task, now, fields, children)
  local parts = { '{"id":"', id, '","state":"', state, '","createdAt":', string.format('%d', creation_ms(id)),
    ',"endedAt":', string.format('%d', now), ',"cycles":', format_count(task and cycles_of(task) or 0) }
  local owner = task and owner_of(task)
  if owner ~= nil then parts[#parts + 1] = ',"worker":' .. cjson.encode(owner) end
  if children ~= nil and #children > 0 then parts[#parts + 1] = ',"children":' .. cjson.encode(children) end
  if fields ~= nil and #fields > 2 then parts[#parts + 1] = ',' .. string.sub(fields, 2) else parts[#parts + 1] = '}' end
  return table.concat(parts)
end

-- OUTCOME_LARGE_BYTES, OUTCOME_LARGE_MOST: records larger than this (a big
-- result or log) are capped in count on their own too, so what the records
-- hold stays bounded in bytes: about `most` x 4 KiB plus 200 of the largest
-- a handler can make (a 64 KiB result, 100 log lines of 1,000 characters)
local OUTCOME_LARGE_BYTES = 4096
local OUTCOME_LARGE_MOST = 200

-- keep_large lists a large record in `outcome-large` (score: when it goes)
-- and drops the oldest beyond the cap, a few per record written (expire
-- drops those past their time); an entry whose record became small again
-- (a later outcome of the same id) leaves the record alone
local function keep_large(id, expiry_ms)
  redis.call('ZADD', K['outcome-large'], expiry_ms, id)
  local over = redis.call('ZCARD', K['outcome-large']) - OUTCOME_LARGE_MOST
  if over <= 0 then return end
  local popped = redis.call('ZPOPMIN', K['outcome-large'], math.min(over, 4))
  for index = 1, #popped, 2 do
    if redis.call('HSTRLEN', K['outcomes'], popped[index]) > OUTCOME_LARGE_BYTES then
      redis.call('HDEL', K['outcomes'], popped[index])
      redis.call('ZREM', K['outcome-expiry'], popped[index])
    end
  end
end

-- record_outcome keeps an outcome for `retention` ms (0: not kept), at most
-- `most` records (and OUTCOME_LARGE_MOST large ones), and tells the task's
-- waiters; written only when kept or heard
local function record_outcome(id, state, task, fields, children, now, retention, most)
  local kept = retention > 0 and most > 0
  local heard = watched(id)
  local json = (kept or heard) and outcome_json(id, state, task, now, fields, children)
  if kept then
    redis.call('HSET', K['outcomes'], id, json)
    redis.call('ZADD', K['outcome-expiry'], now + retention, id)
    if #json > OUTCOME_LARGE_BYTES then keep_large(id, now + retention) end
    local over = redis.call('ZCARD', K['outcome-expiry']) - most
    if over > 0 then
      -- the records that would go first go now; a few per record written
      -- (expire trims a larger excess, a batch at a time)
      local popped = redis.call('ZPOPMIN', K['outcome-expiry'], math.min(over, 4))
      for index = 1, #popped, 2 do redis.call('HDEL', K['outcomes'], popped[index]) end
    end
  elseif redis.call('HDEL', K['outcomes'], id) == 1 then
    redis.call('ZREM', K['outcome-expiry'], id) -- an older outcome must not answer for this one
  end
  if heard then redis.call(SIGNAL_PUBLISH, K['watch'] .. ':' .. id, '{"o":' .. json .. '}') end
end

-- halted_outcome records the outcome of a task the circuit breaker just
-- halted: its last failed attempt's (failed or timeout), else failed
local function halted_outcome(id, task, now, retention, most)
  local attempt = redis.call('HGET', K['attempts'], id)
  local state, fields = 'failed', nil
  if attempt then state, fields = string.match(attempt, '^([a-z]+)|%d+|(.*)$') end
  record_outcome(id, state or 'failed', task, fields, nil, now, retention, most)
end

-- FOLLOWERS_MOST: how many tasks may be held after one task (each is released
-- by the script that completes it)
local FOLLOWERS_MOST = 100

local function followers_of(id)
  return redis.call('ZRANGEBYLEX', K['followers'], '[' .. id .. '\0', '[' .. id .. '\0\255', 'LIMIT', 0, FOLLOWERS_MOST)
end

-- take_held removes a held task and returns it, with its due ms (or nil)
local function take_held(follower)
  local held = redis.call('HGET', K['held'], follower)
  if not held then return nil, nil end
  redis.call('HDEL', K['held'], follower)
  local predecessor, due, json = string.match(held, '^([^%z]*)%z([^%z]*)%z(.*)$')
  if predecessor ~= nil then redis.call('ZREM', K['followers'], predecessor .. '\0' .. follower) end
  return decode_stored(follower, json or ''), tonumber(due or '')
end

-- end_followers: the tasks held after a task that was cancelled or removed
-- end with it, in the same state (`fields` says why); returns their ids
local function end_followers(id, state, fields, now, retention, most)
  local ended = {}
  for _, member in ipairs(followers_of(id)) do
    local follower = string.sub(member, #id + 2)
    local task = take_held(follower)
    record_outcome(follower, state, task, fields, nil, now, retention, most)
    ended[#ended + 1] = follower
  end
  return ended
end

-- cancel_followers: the tasks held after a task that was cancelled are cancelled too
local function cancel_followers(id, now, retention, most)
  end_followers(id, 'cancelled', '{"error":{"message":"cancelled with task ' .. id
    .. ', which it was created after","code":"' .. E_TASK_CANCELLED .. '"}}', now, retention, most)
end

-- REMOVED_FIELDS: why a task deleted with bypass (an operator's delete) has
-- the outcome removed; it did not complete
local REMOVED_FIELDS = '{"error":{"message":"removed: deleted with bypass, not completed"}}'

-- remove_followers: the tasks held after a task deleted with bypass are
-- removed with it (as River's workflows cancel the dependents of a deleted
-- task): nothing they waited for completed; returns their ids
local function remove_followers(id, now, retention, most)
  return end_followers(id, 'removed', '{"error":{"message":"removed with task ' .. id
    .. ', which it was created after; it did not complete"}}', now, retention, most)
end
