import { spawn } from 'node:child_process';
import { childTarget } from './redis.js';

/** EngineCallAnswer is what engine-call.js prints: the operation's value or error code, and when it began. */
export interface EngineCallAnswer {
  value?: unknown;
  startedAt?: number;
  error?: string;
}

/**
 * callIn runs one engine operation in another process (engine-call.js: wait
 * or cancel, on the harness's Redis) and resolves with its answer.
 */
export function callIn(args: string[]): Promise<EngineCallAnswer> {
  const child = spawn(
    process.execPath,
    [new URL('engine-call.js', import.meta.url).pathname, childTarget(), ...args],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise<EngineCallAnswer>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', () => {
      try {
        resolve(JSON.parse(output) as EngineCallAnswer);
      } catch {
        reject(new Error(`engine-call.js printed ${JSON.stringify(output)}`));
      }
    });
  });
}
