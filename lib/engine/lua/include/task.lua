-- task: decode, encode and classify stored tasks (the Lua twin of lib/task).
-- A record that is not an object of string label maps, or whose core does not
-- carry its own id, is not a task: every operation skips it (semantics 1.10).

local function is_label_map(value)
  if type(value) ~= 'table' then return false end
  for key, label in pairs(value) do
    if type(key) ~= 'string' or type(label) ~= 'string' then return false end
  end
  return true
end

local function decode_task(json)
  if type(json) ~= 'string' then return nil end
  local ok, value = pcall(cjson.decode, json)
  if not ok or type(value) ~= 'table' then return nil end
  for key in pairs(value) do
    if type(key) ~= 'string' then return nil end -- a JSON array
  end
  local task = {}
  for _, name in ipairs(MAP_NAMES) do
    local labels = value[name]
    if labels ~= nil and labels ~= cjson.null then
      if not is_label_map(labels) then return nil end
      task[name] = labels
    end
  end
  return task
end

local function encode_task(task)
  local stored = {}
  for _, name in ipairs(MAP_NAMES) do
    if task[name] ~= nil then stored[name] = task[name] end
  end
  return cjson.encode(stored)
end

-- load_task returns the stored task with this id, or nil when there is none
-- or the record is not a task.
local function load_task(id)
  local json = redis.call('HGET', K['tasks'], id)
  if not json then return nil end
  local task = decode_task(json)
  if task == nil or task.core == nil or task.core[LABEL_OBJECT] ~= id then return nil end
  return task
end

local function store_task(id, task)
  redis.call('HSET', K['tasks'], id, encode_task(task))
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
  for _, name in ipairs(MAP_NAMES) do copy[name] = task[name] end
  copy.core = core
  return copy
end

local function is_empty(labels)
  return labels == nil or next(labels) == nil
end

local function same_map(a, b)
  if a == nil or b == nil then return a == b end
  for key, value in pairs(a) do
    if b[key] ~= value then return false end
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

local function is_trigger(task)
  return task.gate ~= nil and has_value(task.gate, GATE_TRIGGER)
end

-- the template id of an emitted child: its root is exactly { [object] = id }
local function template_of(task)
  local root = task.root
  if root == nil then return nil end
  local key, value = next(root)
  if key ~= LABEL_OBJECT or next(root, key) ~= nil then return nil end
  return value
end

local function is_leaf(task)
  return not is_empty(task.root) and template_of(task) == nil
end

-- decimal digits, as the engine writes counters; anything else is unreadable
local function read_count(text)
  if type(text) == 'string' and string.match(text, '^%d+$') then return tonumber(text) end
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
  local cancel = read_count(task.core and task.core[LABEL_CANCEL])
  if cancel == nil or cancel < 1 then return false end
  return cycles_of(task) >= cancel
end

-- timed: an exact task, or a deferred task; due once now reaches its due time
local function is_timed(task)
  local cron = task.cron
  if cron == nil or cron[LABEL_EVERY] ~= nil then return false end
  return cron[LABEL_EXACT] ~= nil or (cron[LABEL_DEFER] ~= nil and cron[LABEL_TICK_P1] ~= nil)
end

-- candidate kinds of search phase 2 (the time rules are applied by the pools)
local function is_candidate(task)
  return not is_halted(task) and method_of(task) ~= METHOD_ALL
    and not is_cron_template(task) and not is_gate_template(task)
end

local function owner_of(task)
  return label_set(task.core, LABEL_WORKER)
end

-- retention may delete tasks without a cron map that are not gate templates
local function is_retained(task)
  return task.cron == nil and not is_gate_template(task)
end

local function is_broadcast(task)
  return method_of(task) == METHOD_ALL and task.cron == nil and not is_gate_template(task)
end

-- the 13-digit creation ms of an id, as a number
local function creation_ms(id)
  return tonumber(string.sub(id, 1, 13))
end

-- the sequence number of an id: the order in which tasks were stored
local function sequence_of(id)
  return tonumber(string.sub(id, 15))
end

local function format_id(now_ms, sequence)
  return string.format('%013d-%012d', now_ms, sequence)
end

local function new_id(now_ms)
  return format_id(now_ms, redis.call('INCR', K['sequence']))
end

-- sorted keys of a map, for deterministic iteration
local function sorted_keys(labels)
  local keys = {}
  if labels ~= nil then
    for key in pairs(labels) do keys[#keys + 1] = key end
  end
  table.sort(keys)
  return keys
end
