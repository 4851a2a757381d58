import { Command } from 'ioredis';

/** bulk encodes one argument as a RESP bulk string. */
function bulk(argument: string): string {
  return `$${Buffer.byteLength(argument)}\r\n${argument}\r\n`;
}

/** ScriptCall: how a script is called, as a Redis function or by its SHA1. */
export type ScriptCall = 'fcall' | 'evalsha';

/**
 * ScriptCommand is an FCALL or EVALSHA whose unchanging head (the command's
 * name, the function's name or the script's SHA1, the key count and the
 * queue's keys: most of its bytes) is encoded once per script and queue, so
 * each call encodes only its ARGV. To ioredis it is an ordinary `fcall` or
 * `evalsha` command: the same arguments, so Cluster routing, the offline
 * queue and replies work as for any other.
 */
export class ScriptCommand extends Command {
  constructor(
    private readonly head: ScriptHead,
    args: string[],
  ) {
    super(head.command, [head.name, String(head.keys.length), ...head.keys, ...args], {
      replyEncoding: 'utf8',
    });
  }

  override toWritable(): string {
    const argv = this.args.length - this.head.argumentCount;
    let tail = '';
    for (let index = this.head.argumentCount; index < this.args.length; index++) {
      tail += bulk(String(this.args[index]));
    }
    return `*${this.head.argumentCount + argv + 1}\r\n${this.head.encoded}${tail}`;
  }
}

/** ScriptHead is the part of a script's call that is the same on every call for one queue. */
export class ScriptHead {
  /** How many arguments of the command the head holds (name or SHA1, key count, keys). */
  readonly argumentCount: number;
  /** The command's name and those arguments, RESP-encoded. */
  readonly encoded: string;

  constructor(
    readonly command: ScriptCall,
    /** The function's name (FCALL) or the script's SHA1 (EVALSHA). */
    readonly name: string,
    readonly keys: readonly string[],
  ) {
    this.argumentCount = 2 + keys.length;
    this.encoded = [bulk(command), bulk(name), bulk(String(keys.length)), ...keys.map(bulk)].join(
      '',
    );
  }
}
