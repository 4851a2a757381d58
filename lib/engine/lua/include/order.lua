-- order: comparisons and ordered walks that do not depend on the server's
-- locale (Lua's `<` on strings uses strcoll, and redis-server sets
-- LC_COLLATE from its environment). Needs the task and index includes. Built
-- on first use: the common search (one worker's plain tasks) needs none of it.

local order_module = nil
local function order()
  if order_module ~= nil then return order_module end
  local M = {}

  local function continuation(text, index)
    return (string.byte(text, index) or 128) % 64
  end

  -- the UTF-16 code units of a UTF-8 string, so strings compare the way
  -- JavaScript compares them
  local function utf16_units(text)
    local units = {}
    local index, length = 1, #text
    while index <= length do
      local byte = string.byte(text, index)
      local point, size
      if byte >= 240 then
        point = (byte % 8) * 262144 + continuation(text, index + 1) * 4096
          + continuation(text, index + 2) * 64 + continuation(text, index + 3)
        size = 4
      elseif byte >= 224 then
        point = (byte % 16) * 4096 + continuation(text, index + 1) * 64 + continuation(text, index + 2)
        size = 3
      elseif byte >= 192 then
        point, size = (byte % 32) * 64 + continuation(text, index + 1), 2
      else
        point, size = byte, 1
      end
      if point >= 65536 then
        point = point - 65536
        units[#units + 1] = 55296 + math.floor(point / 1024)
        units[#units + 1] = 56320 + point % 1024
      else
        units[#units + 1] = point
      end
      index = index + size
    end
    return units
  end

  -- js_less: a < b in JavaScript's string order
  function M.js_less(a, b)
    local left, right = utf16_units(a), utf16_units(b)
    for index = 1, math.min(#left, #right) do
      if left[index] ~= right[index] then return left[index] < right[index] end
    end
    return #left < #right
  end

  -- Walks over ids: visit(id) answers true (stop: found), false (go on), or
  -- 'gone' (the id has no readable record: its index entries are dropped).

  -- each_under calls visit(id) for the members `<prefix>\0<id>` of a lex zset in
  -- order, until visit returns true
  function M.each_under(key, prefix, visit)
    local from = '[' .. prefix .. '\0'
    local to = '[' .. prefix .. '\0\255'
    while true do
      local members = redis.call('ZRANGEBYLEX', key, from, to, 'LIMIT', 0, 100)
      for _, member in ipairs(members) do
        if string.sub(member, 1, -28) == prefix then
          local id = string.sub(member, -26)
          local found = visit(id)
          if found == true then return true end
          if found == 'gone' then orphans().forget(id) end
        end
        from = '(' .. member
      end
      if #members < 100 then return false end
    end
  end

  -- a cursor over a lex zset of ids: pages start at one member (an unfiltered
  -- search needs only the first) and grow to 128
  local function lex_cursor(key)
    return { key = key, from = '-', ids = {}, index = 1, size = 1, done = false }
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

  -- each_merged calls visit(id) for the ids of two lex zsets of ids in their
  -- merged order, until visit returns true
  function M.each_merged(first_key, second_key, visit)
    local first, second = lex_cursor(first_key), lex_cursor(second_key)
    while true do
      local a, b = cursor_peek(first), cursor_peek(second)
      if a == nil and b == nil then return false end
      local id, cursor
      if b == nil or (a ~= nil and bytes_less(a, b)) then
        id, cursor = a, first
      else
        id, cursor = b, second
      end
      cursor.index = cursor.index + 1
      local found = visit(id)
      if found == true then return true end
      if found == 'gone' then orphans().forget(id) end
    end
  end

  -- each_in: each_merged over one lex zset
  function M.each_in(key, visit)
    local cursor = lex_cursor(key)
    while true do
      local id = cursor_peek(cursor)
      if id == nil then return false end
      cursor.index = cursor.index + 1
      local found = visit(id)
      if found == true then return true end
      if found == 'gone' then orphans().forget(id) end
    end
  end

  order_module = M
  return M
end
