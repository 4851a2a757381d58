import { defineEngineCommand } from '../command.js';
import { ExitCode } from '../exit.js';
import { json, table } from '../format.js';

/** `rescue doctor`: check Redis against what the engine needs (engine.doctor()); exit 1 on a failure. */
export const doctorCommand = defineEngineCommand({
  name: 'doctor',
  summary: 'check Redis against what the engine needs (exit 1 when a check fails)',
  description:
    "Checks the Redis the queue lives in: server version, cluster mode, eviction\npolicy, persistence, clock skew, the queue's layout, ACL permissions. Each\ncheck is ok, warn or fail; the command exits 1 when one fails, 0 otherwise\n(warnings too). It only reads.",
  async run({ engine, io, json: asJson }) {
    const report = await engine.doctor();
    if (asJson) io.out(json(report));
    else {
      io.out(
        table(report.checks, [
          { header: 'status', cell: (check) => check.status },
          { header: 'check', cell: (check) => check.name },
          { header: 'message', cell: (check) => check.message },
        ]),
      );
      io.out(`\nstatus: ${report.status}`);
    }
    return report.status === 'fail' ? ExitCode.Failed : ExitCode.Ok;
  },
});
