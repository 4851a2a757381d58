--[[ delete: complete a task, steps 2 to 7 of semantics 3.3.

  KEYS     every key of the queue
  ARGV[1]  now_ms
  ARGV[2]  id          the copy's object id
  ARGV[3]  copy        JSON of the caller's copy
  ARGV[4]  bypass      '1' when the copy's core bypass is 'true'
  ARGV[5]  requeue     '1' when the copy pages or defers (and has no gate, no root)
  ARGV[6]  defer_ok    '0' when the copy's @defer is not a duration (requeue only)
  ARGV[7]  requeued    JSON of the requeued maps {cron, meta, node, sync}, or ''
  ARGV[8]  due_ms      when the requeued task becomes due, or ''
  ARGV[9]  tick_p1_ms  tick+1 of a requeued cron template ('-inf': unreadable, overdue), or ''

  Returns  1 (deleted) or 2 (requeued)
  Errors   TASK_NOT_FOUND, TASK_OUTDATED, TASK_CRON, all before the first write
]]
--- @include "task"
--- @include "has"
--- @include "index"
--- @include "order"

local now = tonumber(ARGV[1])
local id = ARGV[2]
local copy = decode_task(ARGV[3])
local ctx = new_context(now)

-- Step 2: load.
local stored = load_task(id)
if stored == nil then
  return redis.error_reply(E_TASK_NOT_FOUND .. ' delete: task ' .. id .. ' is not in the queue')
end

-- Step 3: ownership, by worker labels; bypass skips it.
if ARGV[4] ~= '1' then
  local owner = owner_of(stored)
  local claimed_by = label_set(copy.core, LABEL_WORKER)
  if owner == nil or claimed_by == nil or owner ~= claimed_by then
    return redis.error_reply(E_TASK_OUTDATED .. ' delete: task ' .. id .. ' is not owned by the copy\'s worker "'
      .. (claimed_by or '') .. '" (owner: "' .. (owner or '') .. '")')
  end
end

-- Step 4: a paging or deferring copy is requeued, once its @defer is readable.
if ARGV[5] == '1' then
  if ARGV[6] ~= '1' then
    return redis.error_reply(E_TASK_CRON .. ' delete: the copy\'s cron "' .. LABEL_DEFER .. '" is not a duration')
  end
  -- Step 7, requeue: the stored core without owner, one more cycle; the rest from the copy.
  local maps = decode_task(ARGV[7])
  local requeued = with_core(maps, copy_map(stored.core))
  requeued.core[LABEL_WORKER] = nil
  requeued.core[LABEL_EXPIRY] = nil
  requeued.core[LABEL_CYCLES] = format_count(cycles_of(stored) + 1)
  requeued.gate = nil
  requeued.root = nil
  ctx.due_ms = tonumber(ARGV[8])
  if ARGV[9] == '-inf' then ctx.tick_p1_ms = -math.huge else ctx.tick_p1_ms = tonumber(ARGV[9]) end
  store_task(id, requeued)
  reindex(id, stored, requeued, ctx)
  -- a requeue that makes a cron template: its tick-1 is looked at by the next ticker
  if is_cron_template(requeued) then redis.call('ZADD', K['ticker-check'], '-inf', id) end
  publish_wakes(ctx)
  return 2
end

-- Step 5: gate accounting, when the copy holds a trigger value. The copy's
-- gate keys are patterns over the keys of every gate template.
local function emit_from_gate(template_id, template)
  local child = {
    core = {},
    meta = copy_map(template.meta),
    node = copy_map(template.node),
    root = { [LABEL_OBJECT] = template_id },
    sync = copy_map(template.sync),
  }
  local child_id = new_id(now)
  child.core[LABEL_OBJECT] = child_id
  store_task(child_id, child)
  reindex(child_id, nil, child, ctx)
end

local function account_gates()
  if not has_value(copy.gate, GATE_TRIGGER) then return end
  local found, template_ids = {}, {}
  local function add(template_id)
    if not found[template_id] then
      found[template_id] = true
      template_ids[#template_ids + 1] = template_id
    end
  end
  local scan_all = false
  for key in pairs(copy.gate) do
    if is_exact_key(key) then
      for _, template_id in ipairs(ids_under(K['gates'], key)) do add(template_id) end
    else
      scan_all = true
    end
  end
  if scan_all then
    for _, template_id in ipairs(redis.call('ZRANGE', K['gate-templates'], 0, -1)) do add(template_id) end
  end
  table.sort(template_ids, bytes_less) -- oldest first

  for _, template_id in ipairs(template_ids) do
    local template = load_task(template_id)
    if template ~= nil and is_gate_template(template) then
      local flipped = false
      for template_key in pairs(template.gate) do
        for key in pairs(copy.gate) do
          if key_matches(key, template_key) then
            template.gate[template_key] = GATE_DELETED
            flipped = true
            break
          end
        end
      end
      if flipped then
        if template.sync ~= nil and copy.sync ~= nil then
          for key, value in pairs(copy.sync) do
            if template.sync[key] ~= nil then template.sync[key] = value end
          end
        end
        if not has_value(template.gate, GATE_WAITING) then
          emit_from_gate(template_id, template)
          for key in pairs(template.gate) do template.gate[key] = GATE_WAITING end
        end
        store_task(template_id, template) -- same keys, same kind: no index changes
      end
    end
  end
end
account_gates()

-- Step 6: an emitted child hands its sync to its template (or whatever task
-- its root's object id names).
local root_id = label_set(copy.root, LABEL_OBJECT)
if root_id ~= nil and not is_empty(copy.sync) then
  local target = load_task(root_id)
  if target ~= nil then
    target.sync = copy_map(copy.sync)
    store_task(root_id, target) -- sync is not indexed
  end
end

-- Step 7: delete, from the record as steps 5 and 6 may have left it.
local current = load_task(id)
if current ~= nil then remove_task(id, current, ctx) end
publish_wakes(ctx)
return 1
