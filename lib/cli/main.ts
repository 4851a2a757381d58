#!/usr/bin/env node
// The `rescue` bin (package.json "bin"): runs the command line and exits
// with its code. Only this file reads process.argv or sets the exit code.
import { processIo } from './io.js';
import { runCli } from './run.js';

// `rescue tasks list | head` closes stdout early: stop quietly
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
});

process.exitCode = await runCli(process.argv.slice(2), processIo());
// Everything the command opened is closed by now; if something still held
// the process open, this makes sure `rescue` never hangs after its work.
setTimeout(() => process.exit(), 2_000).unref();
