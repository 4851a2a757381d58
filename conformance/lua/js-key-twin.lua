--[[ js-key-twin: a test-only script that answers js_key (include/owners.lua)
  for each worker id it is given, to compare with workerOrderKey.

  ARGV     worker ids
  Returns  their keys, in order
]]
--- @include "owners"

local keys = {}
for index, worker in ipairs(ARGV) do keys[index] = js_key(worker) end
return keys
