-- walk: bounded, resumable walks over the lex zsets of ids. Needs the task,
-- step and index includes. Built on first use: the common search (the head of a
-- pool) needs none of it.
--
-- A walk is a table { left = how many members it may still visit, from =
-- the member to resume after (nil: the start), ctx = the script's context }.
-- visit(id) answers true (found: stop), false (go on), 'gone' (the id has no
-- readable record: the member met is dropped, with the id's other entries)
-- or 'stale' (the member met is dropped). A walk that runs out of visits,
-- or of the call's time (include/step.lua), stops with walk.exhausted = true
-- and walk.last = the last member visited, so the next script can resume
-- after it: no script walks an unbounded part of the queue.

local walks_module = nil
local function walks()
  if walks_module ~= nil then return walks_module end
  local M = {}

  local function meet(walk, key, member, id, visit)
    walk.left = walk.left - 1
    walk.last = member
    local found = visit(id)
    if found == 'gone' then
      redis.call('ZREM', key, member)
      orphans().forget(id, walk.ctx)
      found = false
    elseif found == 'stale' then
      redis.call('ZREM', key, member)
      found = false
    end
    -- the call's time spent: the walk stops here as if out of visits
    if found ~= true and walk.left > 0 and step_spent() then walk.left = 0 end
    return found
  end

  -- under: the members `<prefix>\0<id>` of a lex zset in order
  function M.under(key, prefix, walk, visit)
    local from = walk.from ~= nil and '(' .. walk.from or '[' .. prefix .. '\0'
    local to = '[' .. prefix .. '\0\255'
    while walk.left > 0 do
      local page = math.min(walk.left, 100)
      local members = redis.call('ZRANGEBYLEX', key, from, to, 'LIMIT', 0, page)
      for _, member in ipairs(members) do
        if walk.left <= 0 then break end -- stopped by time
        if string.sub(member, 1, -28) == prefix then
          if meet(walk, key, member, string.sub(member, -26), visit) == true then return true end
        else
          walk.left, walk.last = walk.left - 1, member
        end
        from = '(' .. member
      end
      if #members < page and walk.left > 0 then return false end
    end
    walk.exhausted = true
    return false
  end

  -- a cursor over a lex zset of ids: pages start at one member (an unfiltered
  -- search needs only the first) and grow to 128
  local function lex_cursor(key, from)
    return { key = key, from = from, ids = {}, index = 1, size = 1, done = key == nil }
  end

  local function cursor_peek(cursor)
    if cursor.index > #cursor.ids and not cursor.done then
      cursor.ids = redis.call('ZRANGEBYLEX', cursor.key, cursor.from, '+', 'LIMIT', 0, cursor.size)
      cursor.index = 1
      cursor.done = #cursor.ids < cursor.size
      if #cursor.ids > 0 then cursor.from = '(' .. cursor.ids[#cursor.ids] end
      cursor.size = math.min(cursor.size * 2, 128)
    end
    return cursor.ids[cursor.index]
  end

  -- merged: the ids of one or two lex zsets of ids (second_key may be nil),
  -- in their merged order
  function M.merged(first_key, second_key, walk, visit)
    local start = walk.from ~= nil and '(' .. walk.from or '-'
    local first, second = lex_cursor(first_key, start), lex_cursor(second_key, start)
    while walk.left > 0 do
      local a, b = cursor_peek(first), cursor_peek(second)
      if a == nil and b == nil then return false end
      local id, cursor
      if b == nil or (a ~= nil and bytes_less(a, b)) then
        id, cursor = a, first
      else
        id, cursor = b, second
      end
      cursor.index = cursor.index + 1
      if meet(walk, cursor.key, id, id, visit) == true then return true end
    end
    walk.exhausted = true
    return false
  end

  walks_module = M
  return M
end
