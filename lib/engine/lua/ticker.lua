#!lua
--[[ ticker: tick-1 maintenance (A) and emission (B) for a batch of cron
  templates, one template at a time (docs/semantics.md §3.9). The engine computed the
  ticks from each template's @every; the script re-checks that the template is
  the one it computed them for.

  KEYS     the queue's `tasks` key; the script names every other from it (loader.ts)
  ARGV     the ticker list of lib/engine/lua/arguments.ts
           entries: JSON array of { id, every, seen, m1, p1, p1_ms, pm, pm_ms, pm_next,
           pm_next_ms } or { id, every, seen, unreadable = true }:
             every     the @every the ticks were computed from
             seen      the tick+1 label the engine read
             unreadable  the engine cannot read this @every: the template is
                       parked (never due) until a change of the task indexes it anew
             m1, p1    formatTime of schedule(every, now): tick-1 and tick+1
             pm        formatTime of the last point before `seen` (tick-1 once settled)
             pm_next   formatTime of the last point before p1

  Returns  { emitted, stale }: how many children were emitted, and the ids
           whose tick+1 changed since the engine read them
  Errors   none
]]
--- @include "task"
--- @include "owners"
--- @include "links"
--- @include "reindex"
--- @include "remove-task"
--- @include "finish"

local now = tonumber(ARGV[ARG.ticker.now_ms])
local ctx = new_context(now)
local stale = {}

local function emit_child(template_id, template)
  local child = {
    core = {},
    gate = copy_map(template.gate),
    meta = copy_map(template.meta),
    node = copy_map(template.node),
    root = { [LABEL_OBJECT] = template_id },
    sync = copy_map(template.sync),
    payload = template.payload,
  }
  -- a template's priority is its children's (docs/semantics.md §3.13)
  child.core[LABEL_PRIORITY] = template.core and template.core[LABEL_PRIORITY]
  local child_id = new_id(now)
  child.core[LABEL_OBJECT] = child_id
  store_task(child_id, child)
  reindex(child_id, nil, child, ctx)
  ctx.emitted = ctx.emitted + 1
end

local function tick(entry)
  local id = entry.id
  local template = load_task(id)
  if template == nil or not is_cron_template(template) or template.cron[LABEL_EVERY] ~= entry.every then return end
  if (template.cron[LABEL_TICK_P1] or '') ~= entry.seen then
    stale[#stale + 1] = id
    return
  end
  if entry.unreadable then
    -- skipped by every ticker (docs/semantics.md §1.10): not due, so not read again
    redis.call('ZADD', K['templates'], '+inf', id)
    redis.call('ZREM', K['ticker-check'], id)
    return
  end
  -- tick+1 as indexed; a missing or unreadable tick+1 was indexed as overdue
  local tick_p1 = tonumber(redis.call('ZSCORE', K['templates'], id) or '-inf') or -math.huge
  local cron = copy_map(template.cron)
  local settled_at, settled_ms = entry.pm, entry.pm_ms

  -- A: while not overdue and without children, tick-1 names the tick before now.
  if tick_p1 >= now and cron[LABEL_TICK_M1] ~= entry.m1 and #links().children_of(id) == 0 then
    cron[LABEL_TICK_M1] = entry.m1
  end

  -- B: when due, replace lingering all / uni children, emit unless an `any`
  -- child still blocks, and advance tick+1.
  if tick_p1 <= now then
    local blocked = false
    for _, child_id in ipairs(links().children_of(id)) do
      local child = load_task(child_id)
      if child == nil then
        redis.call('ZREM', K['children'], id .. child_id)
      elseif method_of(child) == METHOD_ANY then
        blocked = true
        break
      else
        remove_task(child_id, child, ctx)
      end
    end
    if not blocked then emit_child(id, template) end
    if method_of(template) == METHOD_ALL then cron[LABEL_TICK_M1] = entry.m1 end
    cron[LABEL_TICK_P1] = entry.p1
    redis.call('ZADD', K['templates'], entry.p1_ms, id)
    if ctx.next_tick == nil or entry.p1_ms < ctx.next_tick then ctx.next_tick = entry.p1_ms end
    settled_at, settled_ms = entry.pm_next, entry.pm_next_ms
  end

  if not same_map(cron, template.cron) then
    template.cron = cron
    store_task(id, template) -- cron labels are not indexed beyond `templates`
  end

  -- tick-1 maintenance waits for the last child to go, and for time to pass the
  -- last point before tick+1
  if #links().children_of(id) > 0 or cron[LABEL_TICK_M1] == settled_at then
    redis.call('ZREM', K['ticker-check'], id)
  else
    redis.call('ZADD', K['ticker-check'], settled_ms, id)
  end
end

for _, entry in ipairs(cjson.decode(ARGV[ARG.ticker.entries])) do tick(entry) end
finish(ctx)
return { ctx.emitted, stale }
