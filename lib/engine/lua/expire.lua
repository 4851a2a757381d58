#!lua flags=allow-oom
--[[ expire: one batch of retention deletions and lease revocations
  (docs/semantics.md §3.6), plus one step of the sweep for records that are not tasks,
  one of the sweep for held tasks whose predecessor is gone or a template
  (removed), a batch of outcome records past their time (or beyond the cap),
  and a batch of unique keys whose hold ended.
  The engine calls it until it reports no more work.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the expire list of lib/engine/lua/arguments.ts
           batch: a call also stops deleting and revoking once it has run the
           engine's stepTime (include/step.lua); revoke_ms: the owner's clock
           may be that far behind

  Returns  { deleted, revoked, more, halted, owned after }  more = 1 when a
           batch was full; halted: of the revoked tasks, those the circuit
           breaker now holds; owned after: the `owned` member the sweep of
           owned tasks past retention visited last ('' none), the next call's owned_after
  Errors   none: expire never fails because of the state of tasks
]]
--- @include "task"
--- @include "step"
--- @include "owners"
--- @include "owned"
--- @include "roots"
--- @include "outcome"
--- @include "attempt-log"
--- @include "orphans"
--- @include "reindex"
--- @include "remove-task"
--- @include "finish"

local now = tonumber(ARGV[ARG.expire.now_ms])
local cutoff = ARGV[ARG.expire.cutoff]
local batch = tonumber(ARGV[ARG.expire.batch])
local ctx = new_context(now)
ctx.op = 'expire'
local deleted, revoked, more = 0, 0, 0
-- the call's time is spent (include/step.lua): the next call does the rest
local spent = false
local function spend()
  spent = step_spent()
  if spent then more = 1 end
  return spent
end

-- Retention: tasks without cron that are not gate templates, created before
-- the cutoff. Their ids sort by creation, so the victims are a prefix.
for _, key in ipairs({ K['ready'], K['retention'] }) do
  if spent then break end
  local ids = redis.call('ZRANGEBYLEX', key, '-', '(' .. cutoff, 'LIMIT', 0, batch)
  if #ids == batch then more = 1 end
  for _, id in ipairs(ids) do
    local task = load_task(id)
    if task == nil then
      -- gone, or not a task any more: retention removes the record too (1.10)
      orphans().forget(id, ctx)
      redis.call('HDEL', K['tasks'], id)
    else
      remove_task(id, task, ctx)
      deleted = deleted + 1
    end
    if spend() then break end
  end
end

-- Owned tasks past retention (not in `retention`: include/reindex.lua) are a
-- prefix of `owned`, whose members begin with the id. Those retention does
-- not delete (a cron map: a deferred task keeps its id) are passed over; the
-- engine's next call of the run goes on after the last member this one
-- visited (its answer), so a run gets past them however many there are.
local owned_after = ARGV[ARG.expire.owned_after]
local members = spent and {} or redis.call('ZRANGEBYLEX', K['owned'], owned_after == '' and '-' or '(' .. owned_after,
  '(' .. cutoff, 'LIMIT', 0, batch)
if #members == batch then more = 1 end
for _, member in ipairs(members) do
  local id = owned_id(member)
  local task = load_task(id)
  if task == nil then
    orphans().forget(id, ctx)
    redis.call('HDEL', K['tasks'], id)
  elseif shape_of(task).retained then
    remove_task(id, task, ctx)
    deleted = deleted + 1
  end
  owned_after = member
  if spend() then break end
end

-- Halted tasks retention may delete (not in `retention`: include/reindex.lua)
-- go by when they halted (haltedRetention), a prefix of `halted-since`. The
-- outcome their halt recorded stays for its own time (failedOutcomeRetention).
local halted_ids = spent and {}
  or redis.call('ZRANGEBYSCORE', K['halted-since'], '-inf', '(' .. ARGV[ARG.expire.halted_cutoff], 'LIMIT', 0, batch)
if #halted_ids == batch then more = 1 end
for _, id in ipairs(halted_ids) do
  local task = load_task(id)
  local shape = task ~= nil and shape_of(task) or nil
  if task == nil then
    orphans().forget(id, ctx)
  elseif not (shape.halted and shape.retained) then
    -- an entry a repair kept for a record something else changed
    redis.call('ZREM', K['halted-since'], id)
  else
    remove_task(id, task, ctx)
    deleted = deleted + 1
  end
  if spend() then break end
end

-- Revocation: owned tasks whose lease ended (expiry <= now, less the clock
-- skew allowed) lose their owner and count one more cycle.
local revoke_ms = tonumber(ARGV[ARG.expire.revoke_ms])
local ended = spent and {} or redis.call('ZRANGEBYSCORE', K['leases'], '-inf', revoke_ms, 'LIMIT', 0, batch)
if #ended == batch then more = 1 end
for _, id in ipairs(ended) do
  local task = load_task(id)
  if task == nil then
    -- its owner cannot be read: forget the task's index entries (the owners
    -- count goes back to whom `owned` says it was given)
    orphans().forget(id, ctx)
  elseif owner_of(task) == nil then
    repair_pool(id, task, ctx) -- something else released it: it goes where its record says
  else
    -- the attempt whose lease ran out (unless fail.lua logged it): since its claim (`owned`)
    local since = owned_since(id)
    log_attempt(id, 'expired', task.core[LABEL_TOKEN], owner_of(task), tonumber(since), now, nil)
    local freed = with_core(task, copy_map(task.core))
    freed.core[LABEL_WORKER] = nil
    freed.core[LABEL_EXPIRY] = nil
    freed.core[LABEL_TOKEN] = nil
    freed.core[LABEL_CYCLES] = format_count(cycles_of(task) + 1)
    store_task(id, freed)
    reindex(id, task, freed, ctx)
    revoked = revoked + 1
    -- the circuit breaker holds it now: its waiters learn how its last attempt ended
    if is_halted(freed) then
      halted_outcome(id, freed, now, tonumber(ARGV[ARG.expire.failed]), tonumber(ARGV[ARG.expire.most]))
    end
  end
  if spend() then break end
end

-- Sweep: a few records per call, resuming where the last call stopped; a
-- record that is not a task (written by something else) goes once the
-- creation instant in its id is past retention.
local sweep = tonumber(ARGV[ARG.expire.sweep])
if sweep > 0 then
  local reply = redis.call('HSCAN', K['tasks'], redis.call('GET', K['sweep']) or '0', 'COUNT', sweep)
  redis.call('SET', K['sweep'], reply[1])
  local entries = reply[2]
  for index = 1, #entries, 2 do
    local id = entries[index]
    if decode_scanned(id, entries[index + 1]) == nil
      and string.match(id, '^%d%d%d%d%d%d%d%d%d%d%d%d%d') and tonumber(string.sub(id, 1, 13)) < tonumber(cutoff) then
      redis.call('HDEL', K['tasks'], id)
    end
  end
end

-- Kept answers of idempotent writes (include/request.lua) older than an hour
-- go, REQUESTS_SWEEP entries per call at most, resuming where the last call
-- stopped: every engine instance leaves one entry per slot, so the sweep
-- keeps up with that many new instances per expire run (about 200 a second
-- for one Worker's expire every 5 s), and a hash smaller than it is read whole
local REQUESTS_SWEEP = 1000
if redis.call('EXISTS', K['requests']) == 1 then
  local cursor, swept = redis.call('GET', K['requests-sweep']) or '0', 0
  repeat
    local kept = redis.call('HSCAN', K['requests'], cursor, 'COUNT', 200)
    cursor = kept[1]
    for index = 1, #kept[2], 2 do
      local kept_ms = tonumber(string.match(kept[2][index + 1], '^%d+|(%d+)|') or '0') or 0
      if kept_ms < now - 3600000 then redis.call('HDEL', K['requests'], kept[2][index]) end
    end
    swept = swept + #kept[2] / 2
  until cursor == '0' or swept >= REQUESTS_SWEEP
  redis.call('SET', K['requests-sweep'], cursor)
end

-- Held tasks whose predecessor is gone, or is a template (it never
-- completes: held before create refused that), are removed with the outcome
-- removed, a few per call, resuming where the last call stopped.
if redis.call('EXISTS', K['held']) == 1 then
  local scanned = redis.call('HSCAN', K['held'], redis.call('GET', K['held-sweep']) or '0', 'COUNT', 100)
  redis.call('SET', K['held-sweep'], scanned[1])
  for index = 1, #scanned[2], 2 do
    local follower = scanned[2][index]
    local after = string.match(scanned[2][index + 1], '^([^%z]*)%z') or ''
    local predecessor = after ~= '' and load_task(after) or nil
    if predecessor == nil or is_cron_template(predecessor) or is_gate_template(predecessor) then
      local task = take_held(follower)
      redis.call('HDEL', K['held'], follower) -- a value take_held could not read
      record_outcome(follower, 'removed', task, '{"error":{"message":' .. cjson.encode('removed: task ' .. after
        .. ', which it was created after, left the queue without completing or never completes') .. '}}',
        nil, now, tonumber(ARGV[ARG.expire.retention]), tonumber(ARGV[ARG.expire.most]))
      ctx.events[#ctx.events + 1] = { 'removed', follower, '' }
    end
  end
end

-- Root jobs (include/roots.lua) go on here too, so an idle queue finishes them.
if redis.call('EXISTS', K['root-jobs']) == 1 then roots().work(JOB_MOST) end

-- Filters nobody searched with for FILTER_IDLE_MS are dropped; their pools are
-- emptied a batch per call ('x' in `filter-pools`).
local FILTER_IDLE_MS = 600000
for _, filter_id in ipairs(redis.call('ZRANGEBYSCORE', K['filter-seen'], '-inf', now - FILTER_IDLE_MS, 'LIMIT', 0, 8)) do
  redis.call('ZREM', K['filter-seen'], filter_id)
  redis.call('HDEL', K['filters'], filter_id)
  if redis.call('HEXISTS', K['filter-pools'], filter_id) == 1 then redis.call('HSET', K['filter-pools'], filter_id, 'x') end
end
local pools = redis.call('HGETALL', K['filter-pools'])
for index = 1, #pools, 2 do
  local filter_id = pools[index]
  if pools[index + 1] == 'x' then
    local prefix = filter_id .. '\0'
    local members = redis.call('ZRANGEBYLEX', K['ready-filtered'], '[' .. prefix, '[' .. prefix .. '\255', 'LIMIT', 0, batch)
    for _, member in ipairs(members) do redis.call('ZREM', K['ready-filtered'], member) end
    if #members < batch then redis.call('HDEL', K['filter-pools'], filter_id) else more = 1 end
  end
end

-- Outcome records past their time go (kept while now - ended <= retention,
-- as tasks are under cleanup), a batch per call; so do the oldest of
-- a count beyond the cap (a record written trims only a few).
local OUTCOME_BATCH = 200
local past = redis.call('ZRANGEBYSCORE', K['outcome-expiry'], '-inf', '(' .. now, 'LIMIT', 0, OUTCOME_BATCH)
if #past == OUTCOME_BATCH then more = 1 end
for _, id in ipairs(past) do
  redis.call('HDEL', K['outcomes'], id)
  redis.call('ZREM', K['outcome-expiry'], id)
end
-- the list of large records (include/outcome.lua keep_large) is capped: its past entries go at once
redis.call('ZREMRANGEBYSCORE', K['outcome-large'], '-inf', '(' .. now)
local over = redis.call('ZCARD', K['outcome-expiry']) - tonumber(ARGV[ARG.expire.most])
if over > 0 then
  if over > OUTCOME_BATCH then more = 1 end
  local popped = redis.call('ZPOPMIN', K['outcome-expiry'], math.min(over, OUTCOME_BATCH))
  for index = 1, #popped, 2 do redis.call('HDEL', K['outcomes'], popped[index]) end
end

-- Unique keys whose hold ended (a ttl after their task left: include/unique.lua) go, a batch per call.
local freed = redis.call('ZRANGEBYSCORE', K['unique-expiry'], '-inf', now, 'LIMIT', 0, OUTCOME_BATCH)
if #freed == OUTCOME_BATCH then more = 1 end
for _, key in ipairs(freed) do
  redis.call('HDEL', K['unique'], key)
  redis.call('ZREM', K['unique-expiry'], key)
end

finish(ctx)
return { deleted, revoked, more, ctx.halted, owned_after }
