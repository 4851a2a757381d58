-- request: idempotent writes (lib/engine/requests.ts). A request is
-- `<instance>:<slot>:<number>`: the answer of a script that changed the
-- queue is kept in `requests` under `<instance>:<slot>` as
-- `<number>|<now>|<answer>`, and the same request again finds it there and
-- changes nothing. Expire drops answers older than an hour.

-- replayed_at: the answer kept for request `<key>:<number>` (the engine
-- passes the two apart), or nil. A kept answer starts with its number: a
-- prefix compare tells a different request without a pattern.
local function replayed_at(key, number)
  local kept = redis.call('HGET', K['requests'], key)
  if not kept then return nil end
  local head = number .. '|'
  if string.sub(kept, 1, #head) ~= head then return nil end
  local bar = string.find(kept, '|', #head + 1, true)
  if bar == nil then return nil end
  return string.sub(kept, bar + 1)
end

-- replayed: the answer kept for this request, or nil ('' requests: none)
local function replayed(request)
  if request == '' then return nil end
  local key, number = string.match(request, '^(.*:%d+):(%d+)$')
  return replayed_at(key, number)
end

-- remember_at keeps the answer of request `<key>:<number>`; `now` as text
local function remember_at(key, number, now, answer)
  redis.call('HSET', K['requests'], key, number .. '|' .. now .. '|' .. answer)
end

-- remember keeps the answer of a request whose script changed the queue
local function remember(request, now, answer)
  if request == '' then return end
  local key, number = string.match(request, '^(.*:%d+):(%d+)$')
  remember_at(key, number, string.format('%d', now), answer)
end
