// The files the code reads besides its modules: the Lua scripts (engine/lua/)
// and the dashboard's browser files (dashboard/assets/). From the source tree
// this module reads them where they are, so an edit of a `.lua` file is seen
// at once; the build (scripts/build.js) writes this module in dist/ with their
// text inside, so the files travel with the code when an app is bundled.
import { readFileSync } from 'node:fs';

/** embeddedText returns the text of a file by its path under lib/, e.g. `engine/lua/create.lua`. */
export function embeddedText(path: string): string {
  return readFileSync(new URL(path, import.meta.url), 'utf8');
}
