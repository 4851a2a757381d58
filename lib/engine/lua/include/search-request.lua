-- search-request: a search's arguments (search.lua's header), read into the
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

-- SEARCH_ARGUMENTS: how many arguments search_request reads
local SEARCH_ARGUMENTS = 16

-- search_request reads a search's arguments from ARGV[first] on (their order
-- is in search.lua's header). Numbers stay strings until a phase needs them:
-- turning a 13-digit string into a number is not cheap, and the lease end is
-- only ever a score for Redis.
local function search_request(first)
  local none = {} -- shared by the id sets that are empty; nobody writes to them
  local request = {
    now = tonumber(ARGV[first]),
    now_text = ARGV[first],
    worker = ARGV[first + 1],
    expiry = ARGV[first + 2],
    expiry_ms = ARGV[first + 3],
    floor = string.match(ARGV[first + 5], '^(%d+)'),
    base = string.match(ARGV[first + 5], ':(%d+)$'),
    skip = id_set(ARGV[first + 6], none),
    redeliver = id_set(ARGV[first + 7], none),
    start_ms = ARGV[first + 8],
    exclude = id_set(ARGV[first + 9], none),
    self_key = ARGV[first + 10],
    resume = ARGV[first + 11],
    slot = ARGV[first + 13],
    park_until = ARGV[first + 14],
    request = ARGV[first + 15],
  }
  read_filters(request, ARGV[first + 4], ARGV[first + 12])
  return request
end

-- FOLDED_SEARCH_ARGUMENTS: how many arguments folded_search_request reads
local FOLDED_SEARCH_ARGUMENTS = 9

-- folded_search_request reads the search that delete-search's entries share
-- (its header: the arguments of search.lua an entry does not bring along);
-- each entry sets its filters, slot, broadcast floor and skips
local function folded_search_request()
  local none = {}
  return {
    now = tonumber(ARGV[1]),
    now_text = ARGV[1],
    worker = ARGV[2],
    expiry = ARGV[3],
    expiry_ms = ARGV[4],
    skip = none,
    redeliver = id_set(ARGV[5], none),
    start_ms = ARGV[6],
    exclude = id_set(ARGV[7], none),
    self_key = ARGV[8],
    resume = '',
    slot = '',
    park_until = '',
    request = ARGV[9],
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
