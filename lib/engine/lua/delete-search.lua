--[[ delete-search: complete a task and claim the next one, as one atomic
  step: a delete (semantics 3.3) followed by a search (3.2) with no other step
  between them. The worker runtime uses it so that finishing a task and
  fetching the next costs one round trip.

  KEYS      every key of the queue
  ARGV[1-12]  the delete's arguments, as in delete.lua
  ARGV[13-22] the search's arguments, as in search.lua

  Returns  { delete result, kind, id, record, floor, next due } (see delete.lua, search.lua)
  Errors   those of delete; the search does not run when the delete fails
]]
--- @include "task"
--- @include "has"
--- @include "index"
--- @include "order"
--- @include "delete"
--- @include "search"

local deleting = delete_request(1)
local searching = search_request(13)
local ctx = new_context(deleting.now)
local result = delete(deleting, ctx)
if type(result) == 'table' then return result end
local kind, id, record, floor, next_due = search(searching, ctx)
publish_wakes(ctx)
return { result, kind, id, record, floor, next_due }
