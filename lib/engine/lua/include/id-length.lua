-- id-length: ID_LENGTH, the length of the ids the engine mints (new_id in
-- include/task.lua: 13 digits, '-', 12 digits), for members of a key that end
-- with an id. A file of its own so that what includes it defines it where it
-- is used.

local ID_LENGTH = 26
