import { describe } from '../task/describe.js';
import { limits } from '../task/limits.js';
import { isExactKey } from '../task/pattern.js';

/**
 * readControlKey checks the key of a flow control (a cap, a rate limit):
 * absent (the whole queue), or a non-empty well-formed exact meta key of at
 * most limits.keyBytes bytes; throws a TypeError naming `operation`
 * otherwise. Returns the key as stored ('' for the whole queue).
 */
export function readControlKey(operation: string, key: unknown): string {
  if (key === undefined) return '';
  if (
    typeof key !== 'string' ||
    key === '' ||
    !key.isWellFormed() ||
    key.includes('\0') ||
    Buffer.byteLength(key) > limits.keyBytes ||
    !isExactKey(key)
  ) {
    throw new TypeError(
      `${operation}: "key" must be a meta key (a non-empty string of at most ${limits.keyBytes} bytes, no "*" at either end, no NUL) or absent for the whole queue; got ${describe(key)}`,
    );
  }
  return key;
}
