-- task: decode, encode and classify tasks (the Lua twin of lib/task).
-- A record that is not an object of string label maps is not a task: every
-- operation skips it (docs/semantics.md §1.10).

-- decode_task reads a task in the transport form: a full JSON task (queries,
-- copies and new tasks arrive so in ARGV). With `stored`, `"node": false`
-- (the stored form's "no node") is accepted and left out. The decoded table
-- is the task: other properties and null maps are dropped from it; a payload
-- is a string (the text of its JSON), kept. Returns
-- the task and whether the JSON named a node (null and false included).
local function decode_task(json, stored)
  if type(json) ~= 'string' then return nil end
  local ok, task = pcall(cjson.decode, json)
  if not ok or type(task) ~= 'table' then return nil end
  local named_node = task.node ~= nil
  for name, labels in pairs(task) do
    if type(name) ~= 'string' then return nil end -- a JSON array
    if name == 'payload' and type(labels) == 'string' then
      -- the text of the task's JSON payload, kept as it is (docs/semantics.md §1.11)
    elseif not is_map_name(name) or labels == cjson.null or (stored and labels == false and name == 'node') then
      task[name] = nil -- clearing a field while traversing is allowed
    elseif type(labels) ~= 'table' then
      return nil
    else
      for key, label in pairs(labels) do
        if type(key) ~= 'string' or type(label) ~= 'string' then return nil end
      end
    end
  end
  return task, named_node
end

-- decode_stored reads a record of the tasks hash (lib/task/codec.ts
-- encodeStored): the object id is the hash field, a missing node is the
-- default { method: any } and `"node": false` means no node. A record whose
-- core names another id is not a task.
local function decode_stored(id, json)
  local task, named_node = decode_task(json, true)
  if task == nil then return nil end
  local core = task.core
  if core == nil then
    task.core = { [LABEL_OBJECT] = id }
  elseif core[LABEL_OBJECT] == nil then
    core[LABEL_OBJECT] = id
  elseif core[LABEL_OBJECT] ~= id then
    return nil
  end
  if not named_node then task.node = { [LABEL_METHOD] = METHOD_ANY } end
  return task
end

-- is_object_id: the form of ids the engine mints; records found by scanning
-- the hash are checked with it (ids from the indexes are the engine's own)
local function is_object_id(id)
  return #id == 26 and string.find(id, '^%d+%-%d+$') == 1 and string.byte(id, 14) == 45
end

-- decode_scanned reads a record found by scanning the tasks hash
local function decode_scanned(id, json)
  if not is_object_id(id) then return nil end
  return decode_stored(id, json)
end

-- encode_stored writes a task in the stored form. It leaves out the object id
-- and a default node by changing the task for the moment of encoding, which
-- is cheaper than building a copy.
local function encode_stored(task)
  local core, node = task.core, task.node
  local object = core ~= nil and core[LABEL_OBJECT] or nil
  if object ~= nil then
    core[LABEL_OBJECT] = nil
    if next(core) == nil then task.core = nil end
  end
  if node == nil then
    task.node = false
  else
    local key, value = next(node)
    if key == LABEL_METHOD and value == METHOD_ANY and next(node, key) == nil then task.node = nil end
  end
  local json = cjson.encode(task)
  task.core, task.node = core, node
  if object ~= nil then core[LABEL_OBJECT] = object end
  return json
end

-- load_task returns the stored task with this id, or nil when there is none
-- or the record is not a task.
local function load_task(id)
  local json = redis.call('HGET', K['tasks'], id)
  if not json then return nil end
  return decode_stored(id, json)
end

local function store_task(id, task)
  redis.call('HSET', K['tasks'], id, encode_stored(task))
end

local function copy_map(labels)
  if labels == nil then return nil end
  local copy = {}
  for key, value in pairs(labels) do copy[key] = value end
  return copy
end

-- with_core: a shallow copy of a task with another core map
local function with_core(task, core)
  local copy = {}
  for name, labels in pairs(task) do copy[name] = labels end
  copy.core = core
  return copy
end

local function is_empty(labels)
  return labels == nil or next(labels) == nil
end

local function same_map(a, b)
  if a == b then return true end
  if a == nil or b == nil then return false end
  for key, value in pairs(a) do
    if b[key] ~= value then return false end
  end
  for key in pairs(b) do
    if a[key] == nil then return false end
  end
  return true
end

local function same_keys(a, b)
  if a == b then return true end
  for key in pairs(a) do
    if b[key] == nil then return false end
  end
  for key in pairs(b) do
    if a[key] == nil then return false end
  end
  return true
end

-- a label is set when its value is a non-empty string
local function label_set(labels, key)
  if labels == nil then return nil end
  local value = labels[key]
  if value == nil or value == '' then return nil end
  return value
end

local function has_value(labels, wanted)
  if labels == nil then return false end
  for _, value in pairs(labels) do
    if value == wanted then return true end
  end
  return false
end

local function method_of(task)
  local method = task.node and task.node[LABEL_METHOD]
  if method == METHOD_ALL or method == METHOD_UNI then return method end
  return METHOD_ANY
end

local function is_cron_template(task)
  return task.cron ~= nil and task.cron[LABEL_EVERY] ~= nil
end

local function is_gate_template(task)
  return task.gate ~= nil and not has_value(task.gate, GATE_TRIGGER)
end

-- the template id of an emitted child: its root is exactly { [object] = id }
local function template_of(task)
  local root = task.root
  if root == nil then return nil end
  local key, value = next(root)
  if key ~= LABEL_OBJECT or next(root, key) ~= nil then return nil end
  return value
end

-- decimal digits, as the engine writes counters; anything else is unreadable
local function read_count(text)
  if text ~= nil and string.find(text, '^%d+$') then return tonumber(text) end
  return nil
end

local function cycles_of(task)
  return read_count(task.core and task.core[LABEL_CYCLES]) or 0
end

local function format_count(number)
  return string.format('%d', number)
end

-- halted: the circuit breaker is set (a readable cancel >= 1) and cycles reached it
local function is_halted(task)
  local core = task.core
  if core == nil or core[LABEL_CANCEL] == nil then return false end
  local cancel = read_count(core[LABEL_CANCEL])
  if cancel == nil or cancel < 1 then return false end
  return cycles_of(task) >= cancel
end

-- priority_tag: where a task's priority (core priority, docs/semantics.md
-- §3.13) puts it among claimable tasks of the same kind: '' for priority 0
-- (or a value that cannot be read: something else wrote it), else a sign
-- ('!' above 0, '~' below: they sort before and after the digits that start
-- an id) and 2147483647 - priority in 10 digits, so that byte order is
-- higher priority first, and the id after it oldest first
local PRIORITY_MOST = 2147483647
local function priority_tag(task)
  local text = task.core and task.core[LABEL_PRIORITY]
  if text == nil or not string.find(text, '^%-?%d+$') or #text > 11 then return '' end
  local priority = tonumber(text)
  if priority == nil or priority == 0 or priority > PRIORITY_MOST or priority < -PRIORITY_MOST - 1 then return '' end
  return (priority > 0 and '!' or '~') .. string.format('%010d', PRIORITY_MOST - priority)
end

-- member_tag: the priority tag of a pool member that ends with `<tag><id>`
-- (`ready-prio`, a filter's pool), or '' when it ends with the id alone
local function member_tag(member)
  local sign = string.sub(member, -37, -37)
  if #member >= 37 and (sign == '!' or sign == '~') and string.find(string.sub(member, -36, -27), '^%d+$') then
    return string.sub(member, -37, -27)
  end
  return ''
end

-- timed: an exact task, a deferred task, or one a retry gave back for later
-- (core retry-at); due once now reaches its due time
local function is_timed(task)
  local cron = task.cron
  if cron == nil then return task.core ~= nil and task.core[LABEL_RETRY_AT] ~= nil end
  if cron[LABEL_EVERY] ~= nil then return false end
  return cron[LABEL_EXACT] ~= nil or (cron[LABEL_DEFER] ~= nil and cron[LABEL_TICK_P1] ~= nil)
    or (task.core ~= nil and task.core[LABEL_RETRY_AT] ~= nil)
end

local function owner_of(task)
  return label_set(task.core, LABEL_WORKER)
end

-- outdated_copy: the TASK_OUTDATED error of an operation (delete, extend)
-- whose copy is not of the stored task's current claim: the worker labels
-- differ, or the fencing tokens do; nil when the copy is of it
local function outdated_copy(operation, id, stored, worker, token)
  local owner = owner_of(stored)
  local current = label_set(stored.core, LABEL_TOKEN)
  if owner ~= nil and worker ~= nil and owner == worker and current == token then return nil end
  return redis.error_reply(E_TASK_OUTDATED .. ' ' .. operation .. ': task ' .. id .. ' is not owned by the copy ('
    .. 'worker "' .. (worker or '') .. '", token "' .. (token or '') .. '"; owner "' .. (owner or '')
    .. '", token "' .. (current or '') .. '")')
end

-- shape_of: what the indexes need to know about a task (docs/semantics.md §1.7),
-- computed once per change.
--   candidate   a search may count it (phase 2 rules 1, 2, 3, 6; times aside)
--   retained    retention may delete it (no cron, not a gate template)
--   broadcast   delivered to every engine (method all, no cron, not a gate template)
--   leaf        a root search may find obsolete (not halted, not broadcast)
--   child_of    the template id of an emitted child
local function shape_of(task)
  local method = method_of(task)
  local cron = task.cron
  local cron_template = cron ~= nil and cron[LABEL_EVERY] ~= nil
  local gate_template = task.gate ~= nil and not has_value(task.gate, GATE_TRIGGER)
  local halted = is_halted(task)
  local child_of = template_of(task)
  return {
    method = method,
    cron_template = cron_template,
    gate_template = gate_template,
    halted = halted,
    timed = (cron ~= nil and not cron_template
      and (cron[LABEL_EXACT] ~= nil or (cron[LABEL_DEFER] ~= nil and cron[LABEL_TICK_P1] ~= nil)))
      or (task.core ~= nil and task.core[LABEL_RETRY_AT] ~= nil),
    owner = label_set(task.core, LABEL_WORKER),
    candidate = not halted and method ~= METHOD_ALL and not cron_template and not gate_template,
    retained = cron == nil and not gate_template,
    broadcast = method == METHOD_ALL and cron == nil and not gate_template,
    leaf = not halted and method ~= METHOD_ALL and not is_empty(task.root) and child_of == nil,
    child_of = child_of,
  }
end

-- the 13-digit creation ms of an id, as a number
local function creation_ms(id)
  return tonumber(string.sub(id, 1, 13))
end

-- the sequence number of an id: the order in which tasks were stored
local function sequence_of(id)
  return tonumber(string.sub(id, 15))
end

-- object_id: the id of the task stored at now_ms under number `number` of `sequence`
local function object_id(now_ms, number)
  return string.format('%013d-%012d', now_ms, number)
end

local function new_id(now_ms)
  return object_id(now_ms, redis.call('INCR', K['sequence']))
end

-- bytes_less: a < b comparing bytes. Lua's `<` on strings uses strcoll, and
-- redis-server takes LC_COLLATE from its environment.
local function bytes_less(a, b)
  for index = 1, math.min(#a, #b) do
    local left, right = string.byte(a, index), string.byte(b, index)
    if left ~= right then return left < right end
  end
  return #a < #b
end

-- sorted keys of a map, for deterministic iteration
local function sorted_keys(labels)
  local keys = {}
  if labels ~= nil then
    for key in pairs(labels) do keys[#keys + 1] = key end
  end
  table.sort(keys, bytes_less)
  return keys
end
