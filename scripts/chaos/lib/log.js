// One JSON-lines log per process of a chaos run. Lines are written with a
// synchronous append, so a record written before a SIGKILL is on disk.
import { closeSync, openSync, readdirSync, readFileSync, writeSync } from 'node:fs';
import { join } from 'node:path';

/** now is wall-clock ms with sub-ms resolution, comparable across the processes of one machine. */
export const now = () => performance.timeOrigin + performance.now();

/** openLog opens `<dir>/<name>.jsonl` for appending; each record gets the process name `p`. */
export function openLog(dir, name) {
  const fd = openSync(join(dir, `${name}.jsonl`), 'a');
  return {
    write(record) {
      writeSync(fd, `${JSON.stringify({ p: name, ...record })}\n`);
    },
    close() {
      closeSync(fd);
    },
  };
}

/** readLogs returns the records of every log of a run directory (a torn last line is skipped). */
export function readLogs(dir) {
  const records = [];
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      if (line === '') continue;
      try {
        records.push(JSON.parse(line));
      } catch {
        // a process killed in the middle of a write
      }
    }
  }
  return records;
}
