// `rescue` itself: find the command words in argv, run the command from the
// dispatch table, and turn whatever it throws into one line on stderr and an
// exit code.
import { commonOptions, type OptionSpecs } from './args.js';
import { optionLines, type CliCommand } from './command.js';
import { commands } from './commands/index.js';
import { ExitCode, exitCodeOf, messageOf, usageError } from './exit.js';
import type { CliIo } from './io.js';

/** The flags that may come before the command words and take a value. */
const valueFlags = new Set(
  Object.entries(commonOptions as OptionSpecs)
    .filter(([, spec]) => spec.type === 'string')
    .map(([name]) => `--${name}`),
);

/**
 * commandWords finds the command's words in argv: the first arguments that
 * are not flags, skipping the common flags (`rescue --queue jobs stats`).
 * Returns the words and argv without them.
 */
function commandWords(argv: readonly string[]): { words: string[]; rest: string[] } {
  const words: string[] = [];
  const rest: string[] = [];
  let index = 0;
  for (; index < argv.length && words.length < 2; index++) {
    const arg = argv[index] ?? '';
    if (arg === '--') break;
    if (arg.startsWith('-')) {
      rest.push(arg);
      if (valueFlags.has(arg) && index + 1 < argv.length) rest.push(argv[++index] ?? '');
      continue;
    }
    // a second word only when it makes a known command ('tasks list'), else it is an argument
    if (words.length === 1 && !isGroup(words[0] ?? '')) break;
    words.push(arg);
  }
  return { words, rest: [...rest, ...argv.slice(index)] };
}

function isGroup(word: string): boolean {
  return Object.keys(commands).some((name) => name.startsWith(`${word} `));
}

/** help is `rescue --help`: every command of the dispatch table. */
function help(group?: string): string {
  const names = Object.keys(commands).filter(
    (name) => group === undefined || name.startsWith(`${group} `),
  );
  const width = Math.max(...names.map((name) => name.length));
  return [
    `Usage: rescue ${group ?? '<command>'}${group === undefined ? '' : ' <command>'} [options]`,
    '',
    group === undefined
      ? "Looks at and acts on a rescue-engine queue in Redis. Tables for people, --json\nfor scripts; `rescue <command> --help` for a command's options."
      : `Commands on ${group}; \`rescue ${group} <command> --help\` for one's options.`,
    '',
    'Commands:',
    ...names.map((name) => `  ${name.padEnd(width)}  ${(commands[name] as CliCommand).summary}`),
    '',
    'Options of every command:',
    optionLines(commonOptions),
    '',
    'Exit codes: 0 ok, 1 failed (doctor: a check failed), 2 usage error,',
    '            3 cannot reach Redis, 4 task not found',
  ].join('\n');
}

/** runCli runs `rescue` with argv (without node and the script) and resolves with the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { words, rest } = commandWords(argv);
    if (words.length === 0 || words[0] === 'help') {
      const helpOnly = rest.every((arg) => arg === '--help' || arg === '-h');
      if (words[0] === 'help' || (rest.length > 0 && helpOnly)) {
        io.out(help());
        return ExitCode.Ok;
      }
      io.err(help());
      return ExitCode.Usage;
    }
    const name = words.join(' ');
    const command = commands[name];
    if (command === undefined) {
      const group = words[0] ?? '';
      if (words.length === 1 && isGroup(group)) {
        const asked = rest.includes('--help') || rest.includes('-h');
        (asked ? io.out : io.err)(help(group));
        return asked ? ExitCode.Ok : ExitCode.Usage;
      }
      throw usageError(`unknown command ${JSON.stringify(name)}; see rescue --help`);
    }
    return await command.run(rest, io);
  } catch (error) {
    io.err(`rescue: ${messageOf(error)}`);
    return exitCodeOf(error);
  }
}
