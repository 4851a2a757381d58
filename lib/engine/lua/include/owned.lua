-- owned: the index of owned tasks, `owned`, read and written only here. Each
-- owned task is one member `<id>:<since>:<worker>`, score 0: the worker its
-- owners count was given to, and since when (the claim's ms; '' when repair
-- indexed the record, which cannot know it: engine.status). One sorted set
-- instead of a hash beside the lease index: a claim writes one entry, and a
-- completion that knows its claim's instant drops it with one ZREM
-- (include/lean.lua). Ids have ID_LENGTH characters and no ':', so a
-- member's first ID_LENGTH characters are its id, the members of one id are
-- those between `<id>:` and `<id>;` (';' sorts right after ':'), and the
-- members of tasks created before an instant are a prefix (expire.lua).
--- @include "id-length"

-- owned_entry: the member of task `id` held for `worker` since `since` (text)
local function owned_entry(id, since, worker)
  return id .. ':' .. since .. ':' .. worker
end

-- owned_holder: the member of task `id` and the worker it names, or nil
-- when the task is not in `owned`. An id has one member at most (whatever
-- writes one drops the one before), so the range needs no LIMIT, whose
-- parsing costs Redis about 5,000 instructions (a lookup without it about
-- 7,000, several times an HGET: a completion that knows its claim's
-- instant names the member instead, include/lean.lua).
local function owned_holder(id)
  local member = redis.call('ZRANGEBYLEX', K['owned'], '[' .. id .. ':', '(' .. id .. ';')[1]
  if member == nil then return nil end
  return member, string.match(member, '^[^:]*:%d*:(.*)$')
end

-- owned_since: since when task `id` is owned (the claim's ms as text, ''
-- when repair indexed it), or nil when it is not in `owned`
local function owned_since(id)
  local member = owned_holder(id)
  if member == nil then return nil end
  return string.match(member, '^[^:]*:(%d*):')
end

-- owned_id: the task id of a member
local function owned_id(member)
  return string.sub(member, 1, ID_LENGTH)
end

-- owned_each: visit(id) for every owned task, 100 members a read, in one
-- call: the caller says why that is bounded (caps.lua: the owned tasks when
-- a cap is declared)
local function owned_each(visit)
  local from = '-'
  repeat
    local members = redis.call('ZRANGEBYLEX', K['owned'], from, '+', 'LIMIT', 0, 100)
    for _, member in ipairs(members) do visit(owned_id(member)) end
    if #members > 0 then from = '(' .. members[#members] end
  until #members < 100
end
