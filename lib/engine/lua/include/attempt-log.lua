-- attempt-log: the last attempts of a task in the queue, with their times
-- (docs/semantics.md §7.2). `attempt-log` maps a task's id to a JSON array,
-- oldest first, of at most ATTEMPT_LOG_MOST entries
-- { state, worker, claim, startedAt, endedAt, error }: state failed or
-- timeout (fail.lua, retry.lua, release.lua of an attempt cut short) or
-- expired (expire's revocation of a lease that ran out with nothing
-- recorded); times in ms; error the message, cut. It goes with the task
-- (remove_task, plain_delete). Needs nothing but K.

local ATTEMPT_LOG_MOST = 10
local ATTEMPT_MESSAGE_MOST = 300

-- log_attempt adds an ended attempt to a task's log; an attempt of a claim
-- the log ends with already (a failure, then its lease ran out) is not added again
local function log_attempt(id, state, claim, worker, started_ms, ended_ms, message)
  local kept = redis.call('HGET', K['attempt-log'], id)
  local ok, list = false, nil
  if kept then ok, list = pcall(cjson.decode, kept) end
  if not ok or type(list) ~= 'table' then list = {} end
  if claim ~= nil and claim ~= '' and #list > 0 and type(list[#list]) == 'table' and list[#list].claim == claim then
    return
  end
  if type(message) == 'string' and #message > ATTEMPT_MESSAGE_MOST then
    message = string.sub(message, 1, ATTEMPT_MESSAGE_MOST)
  end
  list[#list + 1] = {
    state = state,
    worker = type(worker) == 'string' and worker or nil,
    claim = claim ~= '' and claim or nil,
    startedAt = type(started_ms) == 'number' and started_ms or nil,
    endedAt = ended_ms,
    error = type(message) == 'string' and message or nil,
  }
  while #list > ATTEMPT_LOG_MOST do table.remove(list, 1) end
  redis.call('HSET', K['attempt-log'], id, cjson.encode(list))
end

-- log_failed adds a failed attempt from the fields fail.lua, retry.lua and
-- release.lua take (JSON: worker, error, startedAt, log)
local function log_failed(id, state, claim, fields_json, now)
  local ok, fields = pcall(cjson.decode, fields_json)
  if not ok or type(fields) ~= 'table' then fields = {} end
  local message = type(fields.error) == 'table' and fields.error.message or nil
  log_attempt(id, state, claim, fields.worker, tonumber(fields.startedAt), now, message)
end
