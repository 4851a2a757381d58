-- delete: steps 2 to 7 of docs/semantics.md §3.3 as one function, and the outcome of
-- a task it deletes: completed, or removed when the copy has bypass (an
-- operator's delete: its followers are removed too, not released).
--- @include "task"
--- @include "has"
--- @include "outcome"
--- @include "roots"
--- @include "links"
--- @include "reindex"
--- @include "remove-task"
--
-- request.now        the engine's clock, ms
-- request.id         the copy's object id
-- request.worker     the copy's core worker, or nil
-- request.bypass     true when the copy's core bypass is 'true'
-- request.requeue    true when the copy pages or defers (and has no gate, no root)
-- request.defer_ok   false when the copy's @defer is not a duration
-- request.requeued   the requeued maps {cron, meta, node, sync}, decoded, or nil
-- request.due_ms     when the requeued task becomes due, or nil
-- request.tick_p1_ms tick+1 of a requeued cron template (-inf: unreadable), or nil
-- request.gate       the copy's gate when it holds a trigger value, or nil
-- request.sync       the copy's sync when it is not empty, or nil
-- request.root_id    the copy's root object id, or nil
-- request.token      the copy's core token, or nil
-- request.outcome    JSON object text of the outcome's fields the engine adds (result, startedAt, log), or nil
-- request.retention  how long the outcome is kept (ms; 0: not kept)
-- request.outcome_most  how many outcomes the queue keeps at most
-- request.children   the tasks its handler spawned, each a spawned list (lib/engine/lua/arguments.ts), or nil
--
-- Returns 1 (deleted), 2 (requeued), or an error reply: TASK_NOT_FOUND,
-- TASK_OUTDATED, TASK_CRON, all before the first write. Counts the children
-- gate templates emitted in ctx.emitted, and a requeue that halts the task in
-- ctx.halted.

-- gates: gate accounting (step 5), built on first use
local gates_module = nil
local function gates()
  if gates_module ~= nil then return gates_module end
  local M = {}

  -- emit_from_gate stores the task a gate template emits (step 5.4)
  local function emit_from_gate(template_id, template, ctx)
    local child_id = new_id(ctx.now)
    local child = {
      core = { [LABEL_OBJECT] = child_id },
      meta = copy_map(template.meta),
      node = copy_map(template.node),
      root = { [LABEL_OBJECT] = template_id },
      sync = copy_map(template.sync),
      payload = template.payload,
    }
    store_task(child_id, child)
    reindex(child_id, nil, child, ctx)
    ctx.emitted = ctx.emitted + 1
  end

  -- account flips the keys of every gate template matched by the copy's gate
  -- keys, oldest template first, and says which templates it changed
  function M.account(gate, sync, ctx)
    local touched = {}
    local found, template_ids = {}, {}
    local scan_all = false
    for key in pairs(gate) do
      if is_exact_key(key) then
        for _, template_id in ipairs(links().ids_under(K['gates'], key)) do
          if not found[template_id] then
            found[template_id] = true
            template_ids[#template_ids + 1] = template_id
          end
        end
      else
        scan_all = true
      end
    end
    if scan_all then
      for _, template_id in ipairs(redis.call('ZRANGE', K['gate-templates'], 0, -1)) do
        if not found[template_id] then
          found[template_id] = true
          template_ids[#template_ids + 1] = template_id
        end
      end
    end
    table.sort(template_ids, bytes_less)

    for _, template_id in ipairs(template_ids) do
      local template = load_task(template_id)
      if template == nil or not is_gate_template(template) then
        -- an entry whose record something else changed (docs/semantics.md §1.10): the
        -- entries met here go; repair rebuilds the rest
        for key in pairs(gate) do redis.call('ZREM', K['gates'], key .. '\0' .. template_id) end
        if template == nil then redis.call('ZREM', K['gate-templates'], template_id) end
      else
        local flipped = false
        for template_key in pairs(template.gate) do
          for key in pairs(gate) do
            if key_matches(key, template_key) then
              template.gate[template_key] = GATE_DELETED
              flipped = true
              break
            end
          end
        end
        if flipped then
          if template.sync ~= nil and sync ~= nil then
            for key, value in pairs(sync) do
              if template.sync[key] ~= nil then template.sync[key] = value end
            end
          end
          if not has_value(template.gate, GATE_WAITING) then
            emit_from_gate(template_id, template, ctx)
            for key in pairs(template.gate) do template.gate[key] = GATE_WAITING end
          end
          store_task(template_id, template) -- same keys, same kind: no index changes
          touched[template_id] = true
        end
      end
    end
    return touched
  end

  gates_module = M
  return M
end

-- release_followers: the tasks held after a task that completed join the queue
local function release_followers(id, ctx)
  for _, member in ipairs(followers_of(id)) do
    local follower = string.sub(member, #id + 2)
    redis.call('ZREM', K['followers'], member)
    local task, due = take_held(follower)
    if task ~= nil then
      store_task(follower, task)
      ctx.due_ms = due
      reindex(follower, nil, task, ctx)
      ctx.due_ms = nil
    end
  end
end

local function delete(request, ctx)
  local id = request.id

  -- Step 2: load.
  local stored = load_task(id)
  if stored == nil then
    -- a held task (created `after` another) an operator removes: out of the hold
    local held = request.bypass and take_held(id) or nil
    if held ~= nil then
      record_outcome(id, 'removed', held, REMOVED_FIELDS, nil, request.now, request.retention, request.outcome_most)
      ctx.events[#ctx.events + 1] = { 'removed', id, '' }
      return 1
    end
    return redis.error_reply(E_TASK_NOT_FOUND .. ' delete: task ' .. id .. ' is not in the queue')
  end

  -- Step 3: ownership, by worker label and fencing token; bypass skips it.
  if not request.bypass then
    local outdated = outdated_copy('delete', id, stored, request.worker, request.token)
    if outdated ~= nil then return outdated end
  end

  if request.requeue and not request.defer_ok then
    return redis.error_reply(E_TASK_CRON .. ' delete: the copy\'s cron "' .. LABEL_DEFER .. '" is not a duration')
  end

  -- The tasks its handler spawned join the queue now, in this step: a leaf
  -- with a root of patterns needs room first (as create checks).
  local children = nil
  if request.children ~= nil then
    for _, entry in ipairs(request.children) do
      entry.task = decode_task(entry[ARG.spawned.task])
      if entry.task ~= nil and shape_of(entry.task).leaf and not roots().room_for(entry.task.root) then
        return redis.error_reply(E_TASK_LIMIT .. ' delete: a spawned task has a root of patterns, and the queue has '
          .. WILD_ROOTS_MOST .. ' such roots already')
      end
    end
    children = {}
    for _, entry in ipairs(request.children) do
      if entry.task ~= nil then
        local child_id = new_id(ctx.now)
        entry.task.core = entry.task.core or {}
        entry.task.core[LABEL_OBJECT] = child_id
        store_task(child_id, entry.task)
        ctx.due_ms, ctx.tick_p1_ms = tonumber(entry[ARG.spawned.due_ms]), tonumber(entry[ARG.spawned.tick_p1_ms])
        reindex(child_id, nil, entry.task, ctx)
        ctx.due_ms, ctx.tick_p1_ms = nil, nil
        local check_ms = entry[ARG.spawned.check_ms]
        if tonumber(check_ms) then redis.call('ZADD', K['ticker-check'], check_ms, child_id) end
        children[#children + 1] = child_id
      end
    end
  end

  -- Step 4: a paging or deferring copy is requeued, once its @defer is readable.
  if request.requeue then
    -- Step 7, requeue: the stored core without owner, one more cycle; the rest from the copy.
    local requeued = with_core(request.requeued, copy_map(stored.core))
    requeued.core[LABEL_WORKER] = nil
    requeued.core[LABEL_EXPIRY] = nil
    requeued.core[LABEL_TOKEN] = nil
    requeued.core[LABEL_CYCLES] = format_count(cycles_of(stored) + 1)
    requeued.gate = nil
    requeued.root = nil
    requeued.payload = stored.payload
    ctx.due_ms = request.due_ms
    ctx.tick_p1_ms = request.tick_p1_ms
    store_task(id, requeued)
    reindex(id, stored, requeued, ctx)
    ctx.due_ms, ctx.tick_p1_ms = nil, nil
    -- a requeue that makes a cron template: its tick-1 is looked at by the next ticker
    if is_cron_template(requeued) then redis.call('ZADD', K['ticker-check'], '-inf', id) end
    return 2
  end

  -- Step 5: gate accounting, when the copy holds a trigger value. The copy's
  -- gate keys are patterns over the keys of every gate template.
  local touched = {}
  if request.gate ~= nil then touched = gates().account(request.gate, request.sync, ctx) end

  -- Step 6: an emitted child hands its sync to its template (or whatever task
  -- its root's object id names).
  if request.root_id ~= nil and request.sync ~= nil then
    local target = load_task(request.root_id)
    if target ~= nil then
      target.sync = copy_map(request.sync)
      store_task(request.root_id, target) -- sync is not indexed
      touched[request.root_id] = true
    end
  end

  -- Step 7: delete, from the record as steps 5 and 6 may have left it.
  local current = stored
  if touched[id] then current = load_task(id) end
  ctx.finished = id
  if request.bypass then
    -- bypass: an operator's delete removes, it does not complete; what is
    -- held after the task goes with it, and so do their waiters' hopes
    for _, follower in ipairs(remove_followers(id, request.now, request.retention, request.outcome_most)) do
      ctx.events[#ctx.events + 1] = { 'removed', follower, '' }
    end
    ctx.op = 'remove'
    if current ~= nil then remove_task(id, current, ctx) end
    ctx.op = 'delete'
    ctx.finished = nil
    record_outcome(id, 'removed', stored, request.outcome or REMOVED_FIELDS, children, request.now,
      request.retention, request.outcome_most)
    return 1
  end
  release_followers(id, ctx)
  if current ~= nil then remove_task(id, current, ctx) end
  ctx.finished = nil
  record_outcome(id, 'completed', stored, request.outcome, children, request.now, request.retention,
    request.outcome_most)
  return 1
end
