import { Command } from 'ioredis';

/** bulk encodes one argument as a RESP bulk string. */
function bulk(argument: string): string {
  return `$${Buffer.byteLength(argument)}\r\n${argument}\r\n`;
}

/** ScriptCall: how a script is called, as a Redis function or by its SHA1. */
export type ScriptCall = 'fcall' | 'evalsha';

/** digits: how many decimal digits a length has. */
function digits(value: number): number {
  return value < 10 ? 1 : value < 100 ? 2 : value < 1_000 ? 3 : String(value).length;
}

/** Up to how many UTF-16 units a string is measured and copied here rather than in the binding. */
const shortChars = 32;

/** utf8Length is the UTF-8 byte length of a string, as Buffer.byteLength counts it (a lone surrogate: 3). */
function utf8Length(text: string): number {
  if (text.length > shortChars) return Buffer.byteLength(text);
  let bytes = 0;
  for (let index = 0; index < text.length; index++) {
    const unit = text.charCodeAt(index);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && isLowSurrogate(text.charCodeAt(index + 1))) {
      bytes += 4;
      index++;
    } else bytes += 3;
  }
  return bytes;
}

function isLowSurrogate(unit: number): boolean {
  return unit >= 0xdc00 && unit <= 0xdfff;
}

/** writeHeader writes `<mark><value>\r\n` at offset and returns the offset after it. */
function writeHeader(buffer: Buffer, offset: number, mark: number, value: number): number {
  buffer[offset++] = mark;
  if (value < 10) {
    buffer[offset++] = 0x30 + value;
  } else if (value < 100) {
    buffer[offset++] = 0x30 + Math.floor(value / 10);
    buffer[offset++] = 0x30 + (value % 10);
  } else {
    offset += buffer.write(String(value), offset, 'latin1');
  }
  buffer[offset++] = 0x0d;
  buffer[offset++] = 0x0a;
  return offset;
}

/** No arguments: what the base class is built with (the full list is set after). */
const noArguments: string[] = [];

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
    /** the argument that tells a first send from one sent again, and its value once written (see Resend) */
    private resend?: Resend,
  ) {
    // The base class copies and checks every argument it is built with; the
    // head's are strings already, and ARGV is made of strings by the caller.
    super(head.command, noArguments, { replyEncoding: 'utf8' });
    this.args = head.arguments.concat(args);
  }

  /**
   * toWritable writes the command as one buffer: the encoded head copied as
   * bytes, then each ARGV argument written in place (no string is built: a
   * busy worker writes thousands of commands a second, and each string it
   * made here was garbage at once).
   */
  override toWritable(): Buffer {
    const { head, args } = this;
    const first = head.argumentCount;
    const lengths: number[] = [];
    let size = 0;
    for (let index = first; index < args.length; index++) {
      const length = utf8Length(args[index] as string);
      lengths.push(length);
      size += digits(length) + length + 5; // $<length>\r\n<argument>\r\n
    }
    const count = args.length + 1;
    const buffer = Buffer.allocUnsafe(digits(count) + 3 + head.encoded.length + size);
    let offset = writeHeader(buffer, 0, 0x2a, count); // *<count>\r\n
    offset += head.encoded.copy(buffer, offset);
    for (let index = first; index < args.length; index++) {
      const argument = args[index] as string;
      const length = lengths[index - first] as number;
      offset = writeHeader(buffer, offset, 0x24, length);
      if (length === argument.length && length <= shortChars) {
        // ASCII and short: byte by byte is cheaper than a call into the binding
        for (let char = 0; char < length; char++) buffer[offset + char] = argument.charCodeAt(char);
      } else {
        buffer.write(argument, offset, length, 'utf8');
      }
      offset += length;
      buffer[offset++] = 0x0d;
      buffer[offset++] = 0x0a;
    }
    // written once: whatever sends this command again (ioredis after a
    // reconnect, a Cluster redirection) writes it anew, as sent again
    const { resend } = this;
    if (resend !== undefined) {
      args[first + resend.index] = resend.value;
      this.resend = undefined;
    }
    return buffer;
  }
}

/**
 * Resend: an ARGV argument whose value tells a script that its request may
 * have run already (include/request.lua), and that value. A command is
 * written by toWritable, each time it is sent: ioredis sends a command
 * again (autoResendUnfulfilledCommands, a Cluster's MOVED or ASK) as the
 * same object, whose first toWritable set the argument to `value`. So only
 * a first write goes out without it, and a script told so need not look for
 * a kept answer: the request id is new (lib/engine/requests.ts).
 */
export interface Resend {
  /** the argument's index in ARGV (0: ARGV[1]) */
  readonly index: number;
  /** its value on any later write */
  readonly value: string;
}

/** ScriptHead is the part of a script's call that is the same on every call for one queue. */
export class ScriptHead {
  /** How many arguments of the command the head holds (name or SHA1, key count, keys). */
  readonly argumentCount: number;
  /** Those arguments. */
  readonly arguments: readonly string[];
  /** The command's name and those arguments, RESP-encoded. */
  readonly encoded: Buffer;

  constructor(
    readonly command: ScriptCall,
    /** The function's name (FCALL) or the script's SHA1 (EVALSHA). */
    readonly name: string,
    readonly keys: readonly string[],
  ) {
    this.arguments = [name, String(keys.length), ...keys];
    this.argumentCount = this.arguments.length;
    this.encoded = Buffer.from([command, ...this.arguments].map(bulk).join(''));
  }
}
