// `node dist/dashboard/main.js [options]`: the dashboard command (command.ts)
// as a program of its own, stopped by SIGINT or SIGTERM.
import { runDashboardCommand } from './command.js';

const stopped = new Promise<void>((resolve) => {
  process.once('SIGINT', () => resolve());
  process.once('SIGTERM', () => resolve());
});

process.exitCode = await runDashboardCommand(process.argv.slice(2), {
  out: (line) => console.log(line),
  err: (line) => console.error(line),
  env: process.env,
  stopped,
});
