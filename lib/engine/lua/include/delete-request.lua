-- delete-request: a delete's arguments (delete.lua's header), read into the
-- request that include/delete.lua and include/plain.lua take.
--- @include "task"

-- a label map the engine validated before sending it, or nil for ''
local function optional_map(json)
  if json == '' then return nil end
  local ok, labels = pcall(cjson.decode, json)
  if not ok or type(labels) ~= 'table' then return nil end
  return labels
end

-- a text argument, nil for ''
local function given(text)
  if text == '' then return nil end
  return text
end

-- read_rare reads the fields of a delete that a worker's completion rarely
-- has (a bypass, a requeue, a gate, sync, root or children) into a request
local function read_rare(request, bypass, requeue, defer_ok, requeued, due_ms, tick_p1_ms, gate, sync, root_id,
  children)
  request.bypass = bypass == '1'
  request.requeue = requeue == '1'
  request.defer_ok = defer_ok == '1'
  if requeued ~= '' then request.requeued = decode_task(requeued) end
  request.due_ms = tonumber(due_ms)
  if tick_p1_ms == '-inf' then request.tick_p1_ms = -math.huge else request.tick_p1_ms = tonumber(tick_p1_ms) end
  request.gate = optional_map(gate)
  request.sync = optional_map(sync)
  request.root_id = given(root_id)
  if children ~= '' then request.children = cjson.decode(children) end
  return request
end

-- DELETE_ARGUMENTS: how many arguments delete_request reads
local DELETE_ARGUMENTS = 17

-- delete_request reads a delete's arguments (delete.lua's header) from
-- ARGV[first] on
local function delete_request(first)
  local request = {
    now = tonumber(ARGV[first]),
    id = ARGV[first + 1],
    worker = given(ARGV[first + 2]),
    token = given(ARGV[first + 12]),
    outcome = given(ARGV[first + 13]),
    retention = tonumber(ARGV[first + 14]),
    outcome_most = tonumber(ARGV[first + 15]),
  }
  return read_rare(request, ARGV[first + 3], ARGV[first + 4], ARGV[first + 5], ARGV[first + 6], ARGV[first + 7],
    ARGV[first + 8], ARGV[first + 9], ARGV[first + 10], ARGV[first + 11], ARGV[first + 16])
end

-- FOLDED_ARGUMENTS: how many arguments folded_delete_request reads
local FOLDED_ARGUMENTS = 5

-- folded_delete_request reads a delete of delete-search (its header): the
-- id, the copy's worker and token, the outcome's fields, and '' or a JSON
-- array of the rare fields in delete.lua's order (bypass ... root id,
-- children); the instant and what is kept of outcomes are the call's.
-- Every argument a call passes costs Redis about 1,200 instructions.
local function folded_delete_request(first, now, retention, outcome_most)
  local request = {
    now = now,
    id = ARGV[first],
    worker = given(ARGV[first + 1]),
    token = given(ARGV[first + 2]),
    outcome = given(ARGV[first + 3]),
    retention = retention,
    outcome_most = outcome_most,
    bypass = false,
    requeue = false,
    defer_ok = true,
  }
  local rare = ARGV[first + 4]
  if rare ~= '' then read_rare(request, unpack(cjson.decode(rare))) end
  return request
end
