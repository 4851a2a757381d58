-- finish: the end of every script that changes tasks: the owners counts are
-- written, and the parked slots that may take the work that became claimable
-- are woken (through the share gate) with one message on the queue's signal.
--- @include "features"
--- @include "owners"
--- @include "parking"
--- @include "pools"

-- candidates counts the tasks of the share gate's n (docs/semantics.md §3.2 phase 3),
-- as a search with this clock would: those promoted only by a later clock
-- aside, those due but not yet promoted included
local function candidates(now)
  return redis.call('ZCARD', K['ready']) + redis.call('ZCARD', K['ready-cron']) + redis.call('ZCARD', K['ready-uni'])
    + redis.call('ZCARD', K['ready-prio']) + redis.call('ZCARD', K['leases']) + redis.call('ZCOUNT', K['waiting'], '-inf', now)
    - redis.call('ZCOUNT', K['promoted'], '(' .. now, '+inf')
end

-- wake_slots unparks a slot for each task that became claimable, one whose
-- worker the share gate lets take one more task (none while the queue is
-- paused); returns their keys
local function wake_slots(ctx)
  if #ctx.claimable == 0 or redis.call('EXISTS', K['parked-slots']) == 0 then return {} end
  -- a paused queue hands out nothing: its slots wait for resume (pause.lua)
  if features()['paused'] and redis.call('EXISTS', K['paused']) == 1 then return {} end
  local n = nil -- counted when first needed
  local granted = {}
  local function may_take(worker)
    local own, workers, before = share_inputs(worker, js_key(worker), ctx)
    own = own + (granted[worker] or 0)
    -- alone among the owners and owning nothing, its share is every
    -- candidate, and the task that woke it is one: no need to count them
    if workers == 1 and own == 0 then
      granted[worker] = 1
      return true
    end
    n = n or candidates(ctx.now)
    local share = math.floor(n / workers)
    if before < n % workers then share = share + 1 end
    if share - own <= 0 then return false end
    granted[worker] = (granted[worker] or 0) + 1
    return true
  end
  local slots = {}
  for _, joined in ipairs(ctx.claimable) do
    local slot_key = parking().take(joined.target, joined.filter_ids, ctx.now, may_take)
    if slot_key ~= nil then slots[#slots + 1] = slot_key end
    if parking().exhausted() then break end
  end
  return slots
end

-- finish ends every script that changes tasks: it writes the owners counts
-- and tells workers about work: one message per script with the parked slots
-- it woke (s: `<worker>\0<slot>` each), whether a broadcast task was stored
-- (a: every worker may take it), the earliest due time of work that becomes
-- claimable later (d), and the earliest tick of a template stored or
-- advanced (t)
local function finish(ctx)
  -- lanes given room by the script (a slot given back, a task gone): their
  -- first tasks join the ready pools, and may wake slots (docs/semantics.md §3.17)
  if ctx.refill ~= nil then aside().refill(ctx) end
  write_counts(ctx)
  local slots = wake_slots(ctx)
  ctx.claimable = {}
  if #slots == 0 and not ctx.broadcast and ctx.next_due == nil and ctx.next_tick == nil then return end
  local message = { d = ctx.next_due, t = ctx.next_tick }
  if #slots > 0 then message.s = slots end
  if ctx.broadcast then message.a = 1 end
  redis.call(SIGNAL_PUBLISH, K['signal'], cjson.encode(message))
end
