-- request: idempotent writes (lib/engine/requests.ts). A request is
-- `<instance>:<slot>:<number>`: the answer of a script that changed the
-- queue is kept in `requests` under `<instance>:<slot>` as
-- `<number>|<now>|<answer>`, and the same request again finds it there and
-- changes nothing. Expire drops answers older than an hour.

-- replayed: the answer kept for this request, or nil ('' requests: none)
local function replayed(request)
  if request == '' then return nil end
  local key, number = string.match(request, '^(.*:%d+):(%d+)$')
  local kept = redis.call('HGET', K['requests'], key)
  if not kept then return nil end
  local kept_number, answer = string.match(kept, '^(%d+)|%d+|(.*)$')
  if kept_number == number then return answer end
  return nil
end

-- remember keeps the answer of a request whose script changed the queue
local function remember(request, now, answer)
  if request == '' then return end
  local key, number = string.match(request, '^(.*:%d+):(%d+)$')
  redis.call('HSET', K['requests'], key, number .. '|' .. string.format('%d', now) .. '|' .. answer)
end
