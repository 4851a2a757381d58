// The dispatch table of `rescue`: command words -> command. `rescue --help`
// lists them in this order.
//
// Adding a subcommand is one line here: `'<words>': someCommand,` where
// someCommand is a CliCommand ({ summary, run(argv, io) => exit code }):
// defineEngineCommand (../command.ts) builds one that parses its flags, prints
// its --help and opens an engine on --redis / --queue; a command with its own
// argument handling (say `dashboard: { summary: '...', run: runDashboardCommand }`)
// gets the arguments after its name and the CliIo (out, err, env, stopped).
// Two-word commands ('tasks list') form a group: `rescue tasks` lists them.
import { runDashboardCommand } from '../../dashboard/command.js';
import type { CliCommand } from '../command.js';
import { capsCommand } from './caps.js';
import { limitsCommand } from './limits.js';
import { doctorCommand } from './doctor.js';
import { metricsCommand } from './metrics.js';
import { pauseCommand, resumeCommand } from './pause.js';
import { repairCommand } from './repair.js';
import { statsCommand } from './stats.js';
import { tailCommand } from './tail.js';
import { tasksCreateCommand } from './tasks-create.js';
import { tasksDeleteCommand } from './tasks-delete.js';
import { tasksListCommand } from './tasks-list.js';
import { tasksResetCommand } from './tasks-reset.js';
import { tasksShowCommand } from './tasks-show.js';
import { templatesCommand } from './templates.js';
import { workersCommand } from './workers.js';

export const commands: Readonly<Record<string, CliCommand>> = {
  stats: statsCommand,
  'tasks list': tasksListCommand,
  'tasks show': tasksShowCommand,
  'tasks create': tasksCreateCommand,
  'tasks delete': tasksDeleteCommand,
  'tasks reset': tasksResetCommand,
  templates: templatesCommand,
  workers: workersCommand,
  tail: tailCommand,
  doctor: doctorCommand,
  repair: repairCommand,
  pause: pauseCommand,
  resume: resumeCommand,
  caps: capsCommand,
  limits: limitsCommand,
  metrics: metricsCommand,
  dashboard: {
    summary: 'serve a web dashboard of the queue (read-only unless --write)',
    run: runDashboardCommand,
  },
};
