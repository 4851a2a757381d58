-- id-length: ID_LENGTH, the length of the ids the engine mints (new_id in
-- include/task.lua: 13 digits, '-', 12 digits), for members of a key that end
-- with an id. A file of its own so that what includes it defines it where it
-- is used: in the general path of delete-search, a closure near Lua's limit
-- of 60 upvalues, it is a local of that closure.

local ID_LENGTH = 26
