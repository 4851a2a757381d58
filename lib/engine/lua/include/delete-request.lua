-- delete-request: a delete's arguments (lib/engine/lua/arguments.ts), read into the
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

-- delete_request reads a delete's arguments (the delete list of
-- lib/engine/lua/arguments.ts) from ARGV[first + 1] on
local function delete_request(first)
  local request = {
    now = tonumber(ARGV[first + ARG.delete.now_ms]),
    id = ARGV[first + ARG.delete.id],
    worker = given(ARGV[first + ARG.delete.worker]),
    token = given(ARGV[first + ARG.delete.token]),
    outcome = given(ARGV[first + ARG.delete.outcome]),
    retention = tonumber(ARGV[first + ARG.delete.retention]),
    outcome_most = tonumber(ARGV[first + ARG.delete.most]),
  }
  return read_rare(request, ARGV[first + ARG.delete.bypass], ARGV[first + ARG.delete.requeue],
    ARGV[first + ARG.delete.defer_ok], ARGV[first + ARG.delete.requeued], ARGV[first + ARG.delete.due_ms],
    ARGV[first + ARG.delete.tick_p1_ms], ARGV[first + ARG.delete.gate], ARGV[first + ARG.delete.sync],
    ARGV[first + ARG.delete.root_id], ARGV[first + ARG.delete.children])
end

-- folded_delete_request reads a delete of delete-search (the folded_delete
-- list, from ARGV[first + 1] on): the id, the copy's worker and token, the
-- outcome's fields, and '' or the JSON array delete_rare; the instant and
-- what is kept of outcomes are the call's. Every argument a call passes
-- costs Redis about 1,200 instructions.
local function folded_delete_request(first, now, retention, outcome_most)
  local request = {
    now = now,
    id = ARGV[first + ARG.folded_delete.id],
    worker = given(ARGV[first + ARG.folded_delete.worker]),
    token = given(ARGV[first + ARG.folded_delete.token]),
    outcome = given(ARGV[first + ARG.folded_delete.outcome]),
    retention = retention,
    outcome_most = outcome_most,
    bypass = false,
    requeue = false,
    defer_ok = true,
  }
  local json = ARGV[first + ARG.folded_delete.rare]
  if json ~= '' then
    local rare = cjson.decode(json)
    read_rare(request, rare[ARG.delete_rare.bypass], rare[ARG.delete_rare.requeue], rare[ARG.delete_rare.defer_ok],
      rare[ARG.delete_rare.requeued], rare[ARG.delete_rare.due_ms], rare[ARG.delete_rare.tick_p1_ms],
      rare[ARG.delete_rare.gate], rare[ARG.delete_rare.sync], rare[ARG.delete_rare.root_id],
      rare[ARG.delete_rare.children])
  end
  return request
end
