--[[ matcher-twin: a test-only script that runs has() on the shared matcher
  fixtures (spec/fixtures/matcher-cases.ts).

  ARGV[1]  JSON array of { labels, query } (either may be null)
  Returns  array of 1 / 0, one per case
]]
--- @include "task"
--- @include "has"

local results = {}
for index, case in ipairs(cjson.decode(ARGV[1])) do
  local labels, query = case.labels, case.query
  if labels == cjson.null then labels = nil end
  if query == cjson.null then query = nil end
  results[index] = has(labels, query) and 1 or 0
end
return results
