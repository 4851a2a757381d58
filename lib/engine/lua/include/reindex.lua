-- reindex: keep every index of a task in step with its content. reindex(id,
-- old, new, ctx) moves a task from the indexes of its old content (nil: a new
-- task) to those of its new content (nil: removed), touching only the indexes
-- whose membership changes.
--
-- ctx.now          the calling engine's clock, ms
-- ctx.due_ms       due time of a new exact / deferred task (else kept from `due`)
-- ctx.tick_p1_ms   tick+1 of a new or advanced cron template
-- ctx.expiry_ms    lease end of a new or renewed owner
-- ctx.claimable    set here: the tasks made claimable (target, filter ids) for finish to wake slots
-- ctx.next_due     set here: the earliest due time of a task put in `waiting`
-- ctx.next_tick    set here: the earliest tick+1 of a template stored or advanced
--
-- The owners counts and the context (ctx) are in include/owners.lua.
--
-- Redis runs a script's whole chunk on every call, so each function defined
-- costs every call. What most calls never need (roots, gates, children, caps)
-- lives in modules built on first use: roots() in include/roots.lua, links()
-- in include/links.lua, caps() in include/caps.lua.
--- @include "task"
--- @include "features"
--- @include "owners"
--- @include "owned"
--- @include "roots"
--- @include "links"
--- @include "pools"
--- @include "caps"

local function reindex_pools(id, old, new, os, ns, ctx)
  local old_timed = os ~= nil and os.timed
  local new_timed = ns ~= nil and ns.timed
  local old_due = old_timed and stored_due(id) or 0
  if new_timed and ctx.due_ms ~= nil then
    redis.call('HSET', K['due'], id, ctx.due_ms)
  elseif old_timed and not new_timed then
    redis.call('HDEL', K['due'], id)
  end
  local new_due = 0
  if new_timed then new_due = ctx.due_ms or stored_due(id) end

  local old_pool, old_member = nil, nil
  if os ~= nil then old_pool, old_member = pool_of(id, old, os, ctx.now, old_due) end
  local new_pool, new_member = nil, nil
  if ns ~= nil then new_pool, new_member = pool_of(id, new, ns, ctx.now, new_due) end

  local moved = old_pool ~= new_pool or old_member ~= new_member
  if old_timed and old_pool ~= nil and old_pool ~= K['leases'] then
    -- an unowned timed task sits in `waiting` or in its ready pool (with its
    -- due time in `promoted`), depending on when it was placed: clear all
    redis.call('ZREM', K['waiting'], id)
    redis.call('ZREM', K['promoted'], id)
    local ready_pool, ready_member = pool_of(id, old, os, math.huge, 0)
    leave_ready(id, ready_pool, ready_member, ctx)
    moved = true
  elseif moved and old_pool ~= nil then
    if old_pool == K['leases'] or old_pool == K['waiting'] then
      redis.call('ZREM', old_pool, old_member)
    else
      leave_ready(id, old_pool, old_member, ctx)
    end
  end
  if moved and new_pool ~= nil then
    if new_pool == K['leases'] then
      redis.call('ZADD', K['leases'], ctx.expiry_ms or 0, id)
    elseif new_pool == K['waiting'] then
      redis.call('ZADD', K['waiting'], new_due, id)
      use_feature('waiting')
      if ctx.next_due == nil or new_due < ctx.next_due then ctx.next_due = new_due end
    else
      join_ready(id, new, new_pool, new_member, ctx)
      if new_timed then
        redis.call('ZADD', K['promoted'], new_due, id)
        use_feature('promoted')
      end
    end
  elseif not moved and new_pool == K['leases'] and ctx.expiry_ms ~= nil then
    redis.call('ZADD', K['leases'], ctx.expiry_ms, id)
  end

  -- `owned` says whom the owners count of an owned task was given to
  -- (include/owned.lua): the count follows it, not the old record, which
  -- something else may have changed
  local new_owner = new_pool == K['leases'] and ns.owner or nil
  if old_pool == K['leases'] or new_owner ~= nil then
    local member, holder = nil, nil
    if old_pool == K['leases'] then member, holder = owned_holder(id) end
    if holder ~= new_owner then
      if member ~= nil then redis.call('ZREM', K['owned'], member) end
      if holder ~= nil then count_owner(holder, -1, ctx) end
      if new_owner ~= nil then
        count_owner(new_owner, 1, ctx)
        -- since when: unknown to repair, which indexes the records anew
        local since = ctx.quiet and '' or string.format('%d', ctx.now)
        redis.call('ZADD', K['owned'], 0, owned_entry(id, since, new_owner))
        -- a claim takes a slot of each capped value (§3.15; the search said
        -- whether a cap is declared, other scripts ask features)
        local capped = ctx.capped
        if capped == nil then capped = features()['caps'] == true end
        if holder == nil and capped then caps().hold(id, new) end
      else
        caps().give(id, old, ctx)
      end
    end
  end

  -- retention finds old tasks in `ready` and `owned` by their ids; the others
  -- are listed here, but for halted ones (in `halted-since`, by when they halted)
  local old_retained = os ~= nil and os.retained and old_pool ~= K['ready'] and old_pool ~= K['leases']
    and not os.halted
  local new_retained = ns ~= nil and ns.retained and new_pool ~= K['ready'] and new_pool ~= K['leases']
    and not ns.halted
  if old_retained ~= new_retained then
    if new_retained then redis.call('ZADD', K['retention'], 0, id) else redis.call('ZREM', K['retention'], id) end
  end
end

-- repair_pool puts a task back where its record says it belongs among the
-- pools (ready, waiting, leases), whatever the indexes said: an operation met
-- an entry that disagrees with the record, which something else changed
-- (docs/semantics.md §1.10). An owned record found elsewhere gets a lease that has
-- ended, so expire revokes it; its owners count follows `owned`.
local function repair_pool(id, task, ctx)
  local shape = shape_of(task)
  leave_ready(id, K['ready'], id, ctx)
  leave_ready(id, K['ready-cron'], id, ctx)
  for _, key in ipairs({ K['waiting'], K['promoted'], K['leases'], K['retention'] }) do
    redis.call('ZREM', key, id)
  end
  drop_unicast(id, ctx)
  local member, holder = owned_holder(id)
  if holder then
    redis.call('ZREM', K['owned'], member)
    count_owner(holder, -1, ctx)
    caps().give(id, nil, ctx)
  end
  local expiry_ms = ctx.expiry_ms
  ctx.expiry_ms = 0
  reindex_pools(id, nil, task, nil, shape, ctx)
  ctx.expiry_ms = expiry_ms
end

-- the leaf and meta bookkeeping of a change (only for queues with roots or
-- listed meta keys: one call tells, in the common case that there are none)
local function reindex_leaves(id, old, new, os, ns, ctx)
  local meta_changed = old == nil or new == nil or not same_map(old.meta, new.meta)
  local old_leaf = os ~= nil and os.leaf
  local new_leaf = ns ~= nil and ns.leaf
  local leaf_changed = (old_leaf or new_leaf) and not (old_leaf and new_leaf and same_map(old.root, new.root))
  if not meta_changed and not leaf_changed then return end
  if ctx.rooted == nil then ctx.rooted = redis.call('EXISTS', K['roots'], K['watched']) > 0 end
  if not ctx.rooted and not new_leaf then return end
  if leaf_changed and old_leaf then roots().unregister(id, old) end
  if meta_changed then
    if old ~= nil then roots().index_meta(id, old.meta, false) end
    if new ~= nil then roots().index_meta(id, new.meta, true) end
  end
  if leaf_changed and new_leaf then
    roots().register(id, new)
    ctx.rooted = true
  end
  if meta_changed and new ~= nil then roots().announce(id, new.meta) end
end

-- note_event: what a change means for `tail` (the `events` stream, written
-- by finish): created / emitted (a template's child), claimed, completed (a
-- delete), removed (retention, an obsolete leaf), revoked (expire), requeued
-- (a delete that pages or defers), released (a release or a reset). ctx.op
-- names the script's kind where the change alone does not tell.
local function note_event(id, old, new, ctx)
  if ctx.quiet then return end
  local kind, worker
  if old == nil then
    if new == nil then return end
    kind = template_of(new) ~= nil and 'emitted' or 'created'
  elseif new == nil then
    kind, worker = ctx.op == 'delete' and 'completed' or 'removed', owner_of(old)
  else
    local was, is = owner_of(old), owner_of(new)
    if was == is then return end
    if is ~= nil then
      kind, worker = 'claimed', is
    else
      worker = was
      if ctx.op == 'expire' then kind = 'revoked'
      elseif ctx.op == 'delete' then kind = 'requeued'
      else kind = 'released' end
    end
  end
  ctx.events[#ctx.events + 1] = { kind, id, worker or '' }
end

local function reindex(id, old, new, ctx)
  note_event(id, old, new, ctx)
  local os = old ~= nil and shape_of(old) or nil
  local ns = new ~= nil and shape_of(new) or nil

  -- a change of core alone (a claim, a renewal, a revocation, a release, a
  -- reset: the other maps are the same tables) touches only the pools, unless
  -- it halts or resumes the task
  if os ~= nil and ns ~= nil and os.halted == ns.halted and ctx.tick_p1_ms == nil
    and old.meta == new.meta and old.root == new.root and old.gate == new.gate
    and old.node == new.node and old.cron == new.cron then
    reindex_pools(id, old, new, os, ns, ctx)
    return
  end

  reindex_leaves(id, old, new, os, ns, ctx)

  local old_gate = os ~= nil and os.gate_template
  local new_gate = ns ~= nil and ns.gate_template
  if (old_gate or new_gate) and not (old_gate and new_gate and same_keys(old.gate, new.gate)) then
    if old_gate then links().index_gate_template(id, old.gate, false) end
    if new_gate then links().index_gate_template(id, new.gate, true) end
  end

  -- halted tasks are listed for the statistics and the circuit-breaker listing
  local old_halted = os ~= nil and os.halted
  local new_halted = ns ~= nil and ns.halted
  if old_halted ~= new_halted then
    if new_halted then redis.call('ZADD', K['halted'], 0, id) else redis.call('ZREM', K['halted'], id) end
    -- a stored task the circuit breaker now holds (for the metrics; a new or
    -- re-indexed record is not a change of state)
    if new_halted and os ~= nil then ctx.halted = ctx.halted + 1 end
  end

  -- halted tasks retention may delete, since when (haltedRetention; they
  -- are not in `retention`); NX: repair, which indexes the records anew, keeps it
  local old_since = os ~= nil and os.halted and os.retained
  local new_since = ns ~= nil and ns.halted and ns.retained
  if old_since ~= new_since then
    if new_since then
      redis.call('ZADD', K['halted-since'], 'NX', string.format('%d', ctx.now), id)
    else
      redis.call('ZREM', K['halted-since'], id)
    end
  end

  local old_broadcast = os ~= nil and os.broadcast
  local new_broadcast = ns ~= nil and ns.broadcast
  if old_broadcast ~= new_broadcast then
    if new_broadcast then
      redis.call('ZADD', K['broadcast'], sequence_of(id), id)
      use_feature('broadcast')
      ctx.broadcast = true -- every engine may take it
    else
      redis.call('ZREM', K['broadcast'], id)
    end
  end

  local old_template = os ~= nil and os.child_of or nil
  local new_template = ns ~= nil and ns.child_of or nil
  if old_template ~= new_template then
    if new_template ~= nil then redis.call('ZADD', K['children'], 0, new_template .. id) end
    if old_template ~= nil then
      redis.call('ZREM', K['children'], old_template .. id)
      links().child_gone(old_template)
    end
  end

  if ns ~= nil and ns.cron_template then
    if ctx.tick_p1_ms ~= nil then
      redis.call('ZADD', K['templates'], ctx.tick_p1_ms, id)
      if ctx.next_tick == nil or ctx.tick_p1_ms < ctx.next_tick then ctx.next_tick = math.max(ctx.tick_p1_ms, 0) end
    elseif os == nil or not os.cron_template then
      redis.call('ZADD', K['templates'], '-inf', id) -- no tick+1 known: overdue
    end
  elseif os ~= nil and os.cron_template then
    redis.call('ZREM', K['templates'], id)
    redis.call('ZREM', K['ticker-check'], id)
  end

  reindex_pools(id, old, new, os, ns, ctx)
end
