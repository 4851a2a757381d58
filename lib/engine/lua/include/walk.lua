-- walk: bounded, resumable walks over the lex zsets of ids. Built on first
-- use: the common search (the head of a pool) needs none of it.
--- @include "task"
--- @include "step"
--- @include "orphans"
--
-- A walk is a table { left = how many members it may still visit, from =
-- the member to resume after (nil: the start), ctx = the script's context }.
-- visit(id, member) answers true (found: stop), false (go on), 'gone' (the id has no
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
    local found = visit(id, member)
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

  -- head: the `<prefix>` of a member `<prefix>\0<id>` or `<prefix>\0<priority
  -- tag><id>` (include/task.lua member_tag)
  local function head(member)
    return string.sub(member, 1, -28 - #member_tag(member))
  end

  -- under: the members `<prefix>\0<id>` of a lex zset in order (a filter's
  -- pool: `<prefix>\0<priority tag><id>` too, which sort by priority around
  -- those without a tag)
  function M.under(key, prefix, walk, visit)
    local from = walk.from ~= nil and '(' .. walk.from or '[' .. prefix .. '\0'
    local to = '[' .. prefix .. '\0\255'
    while walk.left > 0 do
      local page = math.min(walk.left, 100)
      local members = redis.call('ZRANGEBYLEX', key, from, to, 'LIMIT', 0, page)
      for _, member in ipairs(members) do
        if walk.left <= 0 then break end -- stopped by time
        if head(member) == prefix then
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

  -- merged: the members of up to three lex zsets (`ready`, `ready-cron`,
  -- `ready-prio`; a nil key is none) in their merged byte order: ids, and
  -- `<priority tag><id>`, whose tags sort before ('!', priority above 0) or
  -- after ('~', below 0) every id, so the order is priority, then age; a
  -- walk resumes after a member of any of them
  function M.merged(first_key, second_key, third_key, walk, visit)
    local start = walk.from ~= nil and '(' .. walk.from or '-'
    local cursors = { lex_cursor(first_key, start), lex_cursor(second_key, start), lex_cursor(third_key, start) }
    local joined = walk.ctx.lane_joined or 0
    while walk.left > 0 do
      local member, cursor = nil, nil
      for _, each in ipairs(cursors) do
        local peeked = cursor_peek(each)
        if peeked ~= nil and (member == nil or bytes_less(peeked, member)) then member, cursor = peeked, each end
      end
      if member == nil then
        -- the walk let tasks of the lanes it passed join behind it (include/pools.lua
        -- aside().pass): it goes on over them
        if (walk.ctx.lane_joined or 0) == joined then return false end
        joined = walk.ctx.lane_joined
        for _, each in ipairs(cursors) do each.done = each.key == nil end
      else
        cursor.index = cursor.index + 1
        local id = cursor == cursors[3] and string.sub(member, -26) or member
        if meet(walk, cursor.key, member, id, visit) == true then return true end
      end
    end
    walk.exhausted = true
    return false
  end

  walks_module = M
  return M
end
