-- delete-request: a delete's arguments (delete.lua's header), read into the
-- request that include/delete.lua and include/plain.lua take. Needs the task
-- include.

-- a label map the engine validated before sending it, or nil for ''
local function optional_map(json)
  if json == '' then return nil end
  local ok, labels = pcall(cjson.decode, json)
  if not ok or type(labels) ~= 'table' then return nil end
  return labels
end

-- DELETE_ARGUMENTS: how many arguments delete_request reads
local DELETE_ARGUMENTS = 17

-- delete_request reads a delete's arguments from ARGV[first] on (`now`: the
-- instant, when the caller has read it already)
local function delete_request(first, now)
  local tick_p1_ms = nil
  if ARGV[first + 8] == '-inf' then tick_p1_ms = -math.huge else tick_p1_ms = tonumber(ARGV[first + 8]) end
  local requeued = nil
  if ARGV[first + 6] ~= '' then requeued = decode_task(ARGV[first + 6]) end
  return {
    now = now or tonumber(ARGV[first]),
    id = ARGV[first + 1],
    worker = ARGV[first + 2] ~= '' and ARGV[first + 2] or nil,
    bypass = ARGV[first + 3] == '1',
    requeue = ARGV[first + 4] == '1',
    defer_ok = ARGV[first + 5] == '1',
    requeued = requeued,
    due_ms = tonumber(ARGV[first + 7]),
    tick_p1_ms = tick_p1_ms,
    gate = optional_map(ARGV[first + 9]),
    sync = optional_map(ARGV[first + 10]),
    root_id = ARGV[first + 11] ~= '' and ARGV[first + 11] or nil,
    token = ARGV[first + 12] ~= '' and ARGV[first + 12] or nil,
    outcome = ARGV[first + 13] ~= '' and ARGV[first + 13] or nil,
    retention = tonumber(ARGV[first + 14]),
    outcome_most = tonumber(ARGV[first + 15]),
    children = ARGV[first + 16] ~= '' and cjson.decode(ARGV[first + 16]) or nil,
  }
end
