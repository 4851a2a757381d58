import { Command } from 'ioredis';

/** bulk encodes one argument as a RESP bulk string. */
function bulk(argument: string): string {
  return `$${Buffer.byteLength(argument)}\r\n${argument}\r\n`;
}

/** The headers of bulk strings up to 255 bytes long (most arguments), made once. */
const bulkHeaders = Array.from({ length: 256 }, (_, length) => `$${length}\r\n`);

/** bulkHeader is the header of a bulk string of `length` bytes. */
function bulkHeader(length: number): string {
  return bulkHeaders[length] ?? `$${length}\r\n`;
}

/** No arguments: what the base class is built with (the full list is set after). */
const noArguments: string[] = [];

/**
 * ScriptCommand is an EVALSHA whose unchanging head (the command's name, the
 * script's SHA1, the key count and the queue's keys: most of its bytes) is
 * encoded once per script and queue, so each call encodes only its ARGV. To
 * ioredis it is an ordinary `evalsha` command: the same arguments, so Cluster
 * routing, the offline queue and replies work as for any other.
 */
export class ScriptCommand extends Command {
  constructor(
    private readonly head: ScriptHead,
    args: string[],
  ) {
    // The base class copies and checks every argument it is built with; the
    // head's are strings already, and ARGV is made of strings by the caller.
    super('evalsha', noArguments, { replyEncoding: 'utf8' });
    this.args = head.arguments.concat(args);
  }

  /**
   * toWritable writes the command as one buffer: the encoded head copied as
   * bytes, the ARGV encoded after it (a string would be flattened and encoded
   * whole on every write, head included).
   */
  override toWritable(): Buffer {
    const { head } = this;
    let tail = '';
    for (let index = head.argumentCount; index < this.args.length; index++) {
      const argument = this.args[index] as string;
      tail += bulkHeader(Buffer.byteLength(argument)) + argument + '\r\n';
    }
    const count = `*${this.args.length + 1}\r\n`;
    const tailBytes = Buffer.byteLength(tail);
    const buffer = Buffer.allocUnsafe(count.length + head.encoded.length + tailBytes);
    buffer.write(count, 0, 'latin1');
    head.encoded.copy(buffer, count.length);
    buffer.write(tail, count.length + head.encoded.length, tailBytes, 'utf8');
    return buffer;
  }
}

/** ScriptHead is the part of a script's EVALSHA that is the same on every call for one queue. */
export class ScriptHead {
  /** How many arguments of the command the head holds (SHA1, key count, keys). */
  readonly argumentCount: number;
  /** Those arguments. */
  readonly arguments: readonly string[];
  /** The command's name and those arguments, RESP-encoded. */
  readonly encoded: Buffer;

  constructor(
    readonly sha: string,
    readonly keys: readonly string[],
  ) {
    this.arguments = [sha, String(keys.length), ...keys];
    this.argumentCount = this.arguments.length;
    this.encoded = Buffer.from(['evalsha', ...this.arguments].map(bulk).join(''));
  }
}
