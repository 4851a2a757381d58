// The shape of a `rescue` subcommand, and the helper that builds the usual
// kind: parse its flags, print its --help, open an engine on the target
// queue, run, close.
import type { Engine } from '../engine/engine.js';
import {
  commonOptions,
  parseCommandArgs,
  positionalCount,
  type OptionSpecs,
  type Values,
} from './args.js';
import { openEngine, resolveTarget, type Target } from './connection.js';
import { ExitCode } from './exit.js';
import type { CliIo } from './io.js';

/**
 * CliCommand is an entry of the dispatch table (commands/index.ts): a line
 * for `rescue --help`, and a function that gets the arguments after the
 * command's name and resolves with the exit code. Errors it throws become one
 * line on stderr and an exit code (exit.ts).
 */
export interface CliCommand {
  readonly summary: string;
  run(argv: string[], io: CliIo): Promise<number>;
}

/** CommandRun is what an engine command's body gets. */
export interface CommandRun {
  readonly engine: Engine;
  readonly target: Target;
  readonly values: Values;
  readonly positionals: readonly string[];
  readonly io: CliIo;
  /** --json: print JSON instead of tables */
  readonly json: boolean;
}

/** EngineCommandSpec describes a command that works on a queue. */
export interface EngineCommandSpec {
  /** the words that name it, e.g. 'tasks list' */
  readonly name: string;
  readonly summary: string;
  /** the positional arguments in the usage line, e.g. '<id>' */
  readonly args?: string;
  /** how many positional arguments it takes: [min, max] */
  readonly positionals?: readonly [number, number];
  /** a paragraph or two for its --help */
  readonly description: string;
  readonly options?: OptionSpecs;
  /** a few example command lines for its --help */
  readonly examples?: readonly string[];
  /**
   * checks the arguments before anything connects (a usage error exits 2
   * without a Redis); `run` may check more
   */
  readonly check?: (values: Values, positionals: readonly string[]) => void;
  /** resolves with the exit code; nothing: 0 */
  // eslint-disable-next-line @typescript-eslint/no-invalid-void-type -- most commands end without a code
  readonly run: (run: CommandRun) => Promise<number | void>;
}

/** defineEngineCommand builds a CliCommand that opens an engine on the target queue. */
export function defineEngineCommand(spec: EngineCommandSpec): CliCommand {
  const options = { ...spec.options, ...commonOptions };
  const [min, max] = spec.positionals ?? [0, 0];
  const usage = `rescue ${spec.name}${spec.args === undefined ? '' : ` ${spec.args}`} [options]`;
  return {
    summary: spec.summary,
    async run(argv, io) {
      const { values, positionals } = parseCommandArgs(argv, options);
      if (values.flag('help')) {
        io.out(commandHelp(usage, spec, options));
        return ExitCode.Ok;
      }
      positionalCount(positionals, min, max, usage);
      spec.check?.(values, positionals);
      const target = resolveTarget(values, io.env);
      const opened = await openEngine(target);
      try {
        const code = await spec.run({
          engine: opened.engine,
          target,
          values,
          positionals,
          io,
          json: values.flag('json'),
        });
        return typeof code === 'number' ? code : ExitCode.Ok;
      } finally {
        await opened.close();
      }
    },
  };
}

/** commandHelp writes a command's --help: usage, description, options, examples. */
function commandHelp(usage: string, spec: EngineCommandSpec, options: OptionSpecs): string {
  const lines = [`Usage: ${usage}`, '', spec.description, '', 'Options:', optionLines(options)];
  if (spec.examples !== undefined && spec.examples.length > 0)
    lines.push('', 'Examples:', ...spec.examples.map((example) => `  ${example}`));
  return lines.join('\n');
}

/** optionLines lists the options with a help text, aligned. */
export function optionLines(options: OptionSpecs): string {
  const rows = Object.entries(options)
    .filter(([, spec]) => spec.help !== '')
    .map(([name, spec]) => {
      const flag = `${spec.short === undefined ? '    ' : `-${spec.short}, `}--${name}${spec.value === undefined ? '' : ` ${spec.value}`}`;
      return [flag, spec.help] as const;
    });
  const width = Math.max(...rows.map(([flag]) => flag.length));
  return rows.map(([flag, help]) => `  ${flag.padEnd(width)}  ${help}`).join('\n');
}
