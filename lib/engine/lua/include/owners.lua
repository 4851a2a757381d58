-- owners: the context of a script that changes tasks, and the owners counts
-- (who owns how many tasks, for the balancing share gate). Kept apart from
-- include/reindex.lua so that the worker runtime's plain step
-- (include/plain.lua) needs only this and the task include.
--- @include "task"

-- ctx.owners      changes of the owners counts not yet written (see finish)
-- ctx.claimable   tasks that became claimable: { target, filter_ids } each
-- ctx.events      events for the `events` stream (note_event), written by finish
-- ctx.op          'delete', 'remove' (a delete with bypass), 'expire' or nil: what the script does (note_event)
-- ctx.quiet       true: no events (repair indexes every task anew)
-- ctx.untailed    true: the script saw that the events stream does not exist (read_plain)
-- ctx.halted      stored tasks the circuit breaker came to hold (reported to the engine's metrics)
-- ctx.emitted     children emitted by templates (ticker, gate accounting; the same)
local function new_context(now_ms)
  return { now = now_ms, claimable = {}, owners = {}, events = {}, halted = 0, emitted = 0 }
end

-- js_key writes a worker id so that byte order is JavaScript's string order
-- (docs/semantics.md §3.2 sorts workers so): four hex digits per UTF-16 code unit.
-- lib/engine/keys.ts workerOrderKey computes the same key for the calling worker.
-- ASCII is one code unit a byte: one string.format writes every byte's
-- digits (the loop below calls it once a character); string.byte answers
-- the bytes on Lua's stack, so only for ids of ordinary length
local function js_key(text)
  local length = #text
  if length <= 256 and not string.find(text, '[\128-\255]') then
    return string.format(string.rep('00%02x', length), string.byte(text, 1, length))
  end
  local digits = {}
  local index = 1
  while index <= length do
    local byte = string.byte(text, index)
    local point, size = byte, 1
    if byte >= 240 then
      point, size = byte % 8, 4
    elseif byte >= 224 then
      point, size = byte % 16, 3
    elseif byte >= 192 then
      point, size = byte % 32, 2
    end
    for offset = 1, size - 1 do point = point * 64 + (string.byte(text, index + offset) or 128) % 64 end
    if point >= 65536 then
      point = point - 65536
      digits[#digits + 1] = string.format('%04x%04x', 55296 + math.floor(point / 1024), 56320 + point % 1024)
    else
      digits[#digits + 1] = string.format('%04x', point)
    end
    index = index + size
  end
  return table.concat(digits)
end

-- stored_owners: what `owners` and `owner-order` hold, read once per script:
-- scripts write them only at their end (write_counts), which forgets this
local function stored_owners(ctx)
  local reads = ctx.owner_reads
  if reads == nil then
    reads = { own = {}, before = {} }
    ctx.owner_reads = reads
  end
  return reads
end

local function stored_own_of(worker, reads)
  if reads.count == 0 then return 0 end -- nobody owns anything: no count to read
  local own = reads.own[worker]
  if own == nil then
    own = tonumber(redis.call('HGET', K['owners'], worker) or '0')
    reads.own[worker] = own
  end
  return own
end

-- share_of: the balancing share gate's inputs (docs/semantics.md §3.2 phase 3) without
-- reading every owner: own(self), how many workers W holds, and how many of
-- them sort before self, with the changes this script has not written yet.
local function share_inputs(worker, self_key, ctx)
  local reads = stored_owners(ctx)
  if reads.count == nil then reads.count = redis.call('HLEN', K['owners']) end
  local stored_own = stored_own_of(worker, reads)
  local own = stored_own + (ctx.owners[worker] or 0)
  local workers = reads.count
  if stored_own >= 1 then workers = workers - 1 end
  local before = 0
  if workers > 0 then
    before = reads.before[self_key]
    if before == nil then
      before = redis.call('ZLEXCOUNT', K['owner-order'], '-', '(' .. self_key)
      reads.before[self_key] = before
    end
  end
  for other, delta in pairs(ctx.owners) do
    if other ~= worker and delta ~= 0 then
      local stored = stored_own_of(other, reads)
      local was, is = stored >= 1, stored + delta >= 1
      if was ~= is then
        local change = is and 1 or -1
        workers = workers + change
        if bytes_less(js_key(other), self_key) then before = before + change end
      end
    end
  end
  return own, workers + 1, before
end

-- count_owner notes a change of what a worker owns; finish writes the sum
-- (a delete followed by a claim of the same worker writes nothing)
local function count_owner(worker, delta, ctx)
  ctx.owners[worker] = (ctx.owners[worker] or 0) + delta
end

-- heard: whether a pub/sub channel has a subscriber; a user whose ACL
-- predates the count (no `pubsub|numsub`) is answered yes
local function heard(channel)
  local reply = redis.pcall('PUBSUB', SIGNAL_NUMSUB, channel)
  return reply.err ~= nil or reply[2] > 0
end

-- watched says whether anyone listens on a task's watch channel (`wait`,
-- `status` watchers subscribe before they read): a message nobody hears is
-- not built. Watchers subscribe to the queue's `watch` channel as well while
-- they watch any task (lib/engine/watch.ts), so one count a call answers for
-- every task when nobody watches. Pattern subscriptions are not counted
-- (docs/redis-layout.md).
local watching_module = nil
local function watched(id)
  if watching_module == nil then watching_module = heard(K['watch']) end
  return watching_module and heard(K['watch'] .. ':' .. id)
end

-- tell_claim: a claimed task's waiters hear who runs it
local function tell_claim(id, worker)
  if watched(id) then redis.call(SIGNAL_PUBLISH, K['watch'] .. ':' .. id, '{"w":' .. cjson.encode(worker) .. '}') end
end

-- write_counts writes what the script noted in ctx: the owners counts, and
-- the events for `tail`
local function write_counts(ctx)
  for worker, delta in pairs(ctx.owners) do
    if delta ~= 0 then
      local count = redis.call('HINCRBY', K['owners'], worker, delta)
      if count <= 0 then
        redis.call('HDEL', K['owners'], worker)
        redis.call('ZREM', K['owner-order'], js_key(worker))
      elseif count == delta then
        redis.call('ZADD', K['owner-order'], 0, js_key(worker)) -- owns its first task
      end
    end
  end
  ctx.owners = {}
  ctx.owner_reads = nil
  -- the capped stream `tail` reads, while someone reads it: the stream exists
  -- then (engine.events() makes it, with a TTL); NOMKSTREAM writes nothing else
  if ctx.untailed then ctx.events = {} return end
  for _, event in ipairs(ctx.events) do
    if not redis.call('XADD', K['events'], 'NOMKSTREAM', 'MAXLEN', '~', '10000', '*', 'e', event[1], 'id', event[2],
      'w', event[3], 'at', string.format('%d', ctx.now)) then break end
  end
  ctx.events = {}
end
