--[[ matcher-scans: a test-only script that runs has() on one case and counts
  how often it walks the labels (calls pairs on them). Exact query keys are
  looked up, so only pattern keys may walk.

  ARGV[1]  JSON { labels, query }
  Returns  { 1 / 0 (the result of has), walks of the labels }
]]
local walks = 0
local case = cjson.decode(ARGV[1])
local labels = case.labels
local lua_pairs = pairs
-- shadows the global for the included has() below
local function pairs(t)
  if t == labels then walks = walks + 1 end
  return lua_pairs(t)
end
--- @include "has"

return { has(labels, case.query) and 1 or 0, walks }
