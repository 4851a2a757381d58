import { systemClock } from '../../clock.js';
import { tryParseTime } from '../../task/time.js';
import { defineEngineCommand } from '../command.js';
import { json, labelList, relative, table } from '../format.js';

/** `rescue workers`: the queue's live workers (engine.workers()). */
export const workersCommand = defineEngineCommand({
  name: 'workers',
  summary: 'live workers: host, pid, concurrency, running tasks, handler labels',
  description:
    "Lists the queue's live workers: each running Worker renews its presence with a\nheartbeat; one that died drops out once its presence's TTL ran out. Handlers\nshow their labels ('*': a handler without labels, which takes any task).",
  async run({ engine, io, json: asJson }) {
    const workers = await engine.workers();
    if (asJson) {
      io.out(json(workers));
      return;
    }
    const now = systemClock();
    const ago = (text: string) => {
      const time = tryParseTime(text);
      return time === undefined ? text : relative(time, now);
    };
    io.out(
      table(workers, [
        { header: 'worker', cell: (row) => row.worker },
        { header: 'host', cell: (row) => row.host },
        { header: 'pid', cell: (row) => String(row.pid) },
        { header: 'running', cell: (row) => `${row.running}/${row.concurrency}` },
        { header: 'started', cell: (row) => ago(row.started) },
        { header: 'heartbeat', cell: (row) => ago(row.heartbeat) },
        {
          header: 'handlers',
          cell: (row) =>
            row.handlers
              .map((labels) =>
                labels === null
                  ? '*'
                  : Object.entries(labels)
                      .map(
                        ([map, value]) => `${map}: ${labelList(value as Record<string, string>)}`,
                      )
                      .join('; '),
              )
              .join(' | '),
        },
      ]),
    );
  },
});
