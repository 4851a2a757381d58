-- has: the Lua twin of lib/matcher (docs/semantics.md §2). Both run the cases of
-- spec/fixtures/matcher-cases.ts.

-- key patterns: '*' any key; '*x*' contains x; '*x' ends with x; 'x*' starts
-- with x; anything else is exact
local function key_matches(pattern, key)
  if pattern == '*' then return true end
  local length = #pattern
  local leading = string.sub(pattern, 1, 1) == '*'
  local trailing = length > 0 and string.sub(pattern, length, length) == '*'
  if leading and trailing then
    return string.find(key, string.sub(pattern, 2, length - 1), 1, true) ~= nil
  elseif leading then
    local suffix = string.sub(pattern, 2)
    return #key >= #suffix and string.sub(key, #key - #suffix + 1) == suffix
  elseif trailing then
    local prefix = string.sub(pattern, 1, length - 1)
    return string.sub(key, 1, #prefix) == prefix
  end
  return key == pattern
end

local function is_exact_key(pattern)
  local length = #pattern
  return string.sub(pattern, 1, 1) ~= '*' and (length == 0 or string.sub(pattern, length, length) ~= '*')
end

-- some label has a key the pattern key (not exact) matches and a value the
-- value pattern matches; the pattern is taken apart once, not once per label
local function some_label(labels, pattern, value_pattern)
  local any_value = value_pattern == '*'
  if pattern == '*' then
    for _, value in pairs(labels) do
      if any_value or value == value_pattern then return true end
    end
    return false
  end
  local sub, length = string.sub, #pattern
  local leading, trailing = sub(pattern, 1, 1) == '*', sub(pattern, length, length) == '*'
  if leading and trailing then
    local inner = sub(pattern, 2, length - 1)
    for key, value in pairs(labels) do
      if (any_value or value == value_pattern) and string.find(key, inner, 1, true) ~= nil then return true end
    end
  elseif leading then
    local suffix = sub(pattern, 2)
    local size = #suffix
    for key, value in pairs(labels) do
      if (any_value or value == value_pattern) and #key >= size and sub(key, -size) == suffix then return true end
    end
  else
    local prefix = sub(pattern, 1, length - 1)
    local size = #prefix
    for key, value in pairs(labels) do
      if (any_value or value == value_pattern) and sub(key, 1, size) == prefix then return true end
    end
  end
  return false
end

-- every pair of the query matches some label; a pair with an exact key is a
-- lookup (a decoded map is a table), only a pattern key walks the labels
local function has(labels, query)
  if query == nil then return false end
  local first_key, first_value = next(query)
  if first_key == '*' and first_value == '*' and next(query, first_key) == nil then return true end
  if labels == nil or next(labels) == nil or first_key == nil then return false end
  for query_key, query_value in pairs(query) do
    if is_exact_key(query_key) then
      local value = labels[query_key]
      if value == nil or not (query_value == '*' or query_value == value) then return false end
    elseif not some_label(labels, query_key, query_value) then
      return false
    end
  end
  return true
end

-- a query map is satisfied when it is absent or empty, or `has` holds
local function satisfied(labels, wanted)
  return wanted == nil or next(wanted) == nil or has(labels, wanted)
end

local function matches(task, query)
  return satisfied(task.core, query.core) and satisfied(task.cron, query.cron)
    and satisfied(task.gate, query.gate) and satisfied(task.meta, query.meta)
    and satisfied(task.node, query.node) and satisfied(task.root, query.root)
    and satisfied(task.sync, query.sync)
end

-- quoted: a string as JSON spells it when it has no escape, or nil when JSON
-- escapes or may escape some character of it ('/' is '\/' in cjson)
local function quoted(text)
  if string.find(text, '[%z\1-\31"\\/]') then return nil end
  return '"' .. text .. '"'
end

-- spelled_values: strings a stored record must contain to match the query,
-- each an exact value the query asks of a map the stored form writes as it
-- is, quoted as JSON spells it (core and node are left out: the stored form
-- drops the object id and a default node). Left out too: '*', which any value
-- matches, and a value `quoted` cannot spell.
local function spelled_values(query)
  local spelled = {}
  for _, name in ipairs({ 'cron', 'gate', 'meta', 'root', 'sync' }) do
    for _, value in pairs(query[name] or {}) do
      if value ~= '*' then spelled[#spelled + 1] = quoted(value) end
    end
  end
  return spelled
end

-- may_match: false when a record cannot match a query, told without decoding
-- it from the query's spelled_values (or any strings it must hold, quoted). In
-- a record whose only escapes are '\/' (or none), every other character of a
-- string is written as it is, so a record without a spelled value has no
-- label (or key) with that value. A record with other escapes is decoded.
local function may_match(json, spelled)
  if #spelled == 0 then return true end
  local find, byte = string.find, string.byte
  local escape = find(json, '\\', 1, true)
  while escape ~= nil do
    if byte(json, escape + 1) ~= 47 then return true end -- not '\/'
    escape = find(json, '\\', escape + 2, true)
  end
  for index = 1, #spelled do
    if not find(json, spelled[index], 1, true) then return false end
  end
  return true
end
