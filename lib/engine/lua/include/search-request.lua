-- search-request: a search's arguments (lib/engine/lua/arguments.ts), read into the
-- request that include/search.lua and include/plain.lua take, its answer, and
-- the answer to a search request sent again.
--- @include "task"

-- an answer of search: kind, id, record, floor, next due, resume, sequence back
local function answer(kind, id, record, floor, due, resume, back)
  return kind, id or '', record or '', floor, due or '', resume or '', back or ''
end

-- a set of ids from a JSON array; '' (most searches) gives `none`
local function id_set(json, none)
  if json == '' then return none end
  local set = {}
  for _, id in ipairs(cjson.decode(json)) do set[id] = true end
  return set
end

-- read_filters: the filters of a request, from a JSON array of their JSON
-- texts and a list of their ids, each followed by ','
local function read_filters(request, texts, ids)
  request.filters, request.filter_ids, request.filter_json = {}, {}, {}
  if texts == '' then return end
  for _, json in ipairs(cjson.decode(texts)) do
    request.filters[#request.filters + 1] = decode_task(json)
    request.filter_json[#request.filter_json + 1] = json
  end
  for filter_id in string.gmatch(ids, '([^,]*),') do request.filter_ids[#request.filter_ids + 1] = filter_id end
end

-- search_request reads a search's arguments (the search list of
-- lib/engine/lua/arguments.ts) from ARGV[first + 1] on. Numbers stay strings
-- until a phase needs them: turning a 13-digit string into a number is not
-- cheap, and the lease end is only ever a score for Redis.
local function search_request(first)
  local none = {} -- shared by the id sets that are empty; nobody writes to them
  local request = {
    now = tonumber(ARGV[first + ARG.search.now_ms]),
    now_text = ARGV[first + ARG.search.now_ms],
    worker = ARGV[first + ARG.search.worker],
    expiry = ARGV[first + ARG.search.expiry],
    expiry_ms = ARGV[first + ARG.search.expiry_ms],
    floor = string.match(ARGV[first + ARG.search.floors], '^(%d+)'),
    base = string.match(ARGV[first + ARG.search.floors], ':(%d+)$'),
    skip = id_set(ARGV[first + ARG.search.skip], none),
    redeliver = id_set(ARGV[first + ARG.search.redeliver], none),
    start_ms = ARGV[first + ARG.search.start_ms],
    exclude = id_set(ARGV[first + ARG.search.exclude], none),
    self_key = ARGV[first + ARG.search.self_key],
    resume = ARGV[first + ARG.search.resume],
    slot = ARGV[first + ARG.search.slot],
    park_until = ARGV[first + ARG.search.park_until],
    request = ARGV[first + ARG.search.request],
    again = false,
  }
  -- the request is prefixed with `r` when it may have run already (sent
  -- again by the engine or by ioredis: lib/engine/run.ts runRequest); only
  -- such a send can find its answer kept, as a request id is never taken
  -- twice. A request id starts with the engine's UUID, never with `r`.
  if string.byte(request.request) == 114 then -- 'r'
    request.request, request.again = string.sub(request.request, 2), true
  end
  read_filters(request, ARGV[first + ARG.search.filters], ARGV[first + ARG.search.filter_ids])
  return request
end

-- folded_search_request reads the search that delete-search's entries share
-- (the folded_search list: the arguments of search an entry does not bring
-- along, at the start of ARGV); each entry sets its filters, slot, broadcast
-- floor and skips
local function folded_search_request()
  local none = {}
  return {
    now = tonumber(ARGV[ARG.folded_search.now_ms]),
    now_text = ARGV[ARG.folded_search.now_ms],
    worker = ARGV[ARG.folded_search.worker],
    expiry = ARGV[ARG.folded_search.expiry],
    expiry_ms = ARGV[ARG.folded_search.expiry_ms],
    skip = none,
    redeliver = id_set(ARGV[ARG.folded_search.redeliver], none),
    start_ms = ARGV[ARG.folded_search.start_ms],
    exclude = id_set(ARGV[ARG.folded_search.exclude], none),
    self_key = ARGV[ARG.folded_search.self_key],
    resume = '',
    slot = '',
    park_until = '',
    request = ARGV[ARG.folded_search.request],
    filters = none,
    filter_ids = none,
    filter_json = none,
  }
end

-- replay_claim answers a search request again whose first answer was a claim
-- (`<id>:<token>`, kept by include/request.lua): the same task while the claim
-- holds, else no work; nothing is written either way
local function replay_claim(kept, request)
  local floors = request.floor .. ':' .. request.base
  local id, token = string.match(kept, '^(.*):(%d+)$')
  local record = redis.call('HGET', K['tasks'], id)
  local task = record and decode_stored(id, record) or nil
  if task ~= nil and owner_of(task) == request.worker and label_set(task.core, LABEL_TOKEN) == token then
    return 'task', id, record, floors, '', '', ''
  end
  return 'none', '', '', floors, '', '', ''
end
