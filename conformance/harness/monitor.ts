import { randomUUID } from 'node:crypto';
import { connect, type Socket } from 'node:net';

/**
 * A MONITOR connection of its own, on a plain socket. ioredis's `monitor()`
 * has a race (redis/ioredis#1981): when the +OK of MONITOR and the first
 * monitored line arrive in one packet, the line is parsed before the client
 * has switched to monitoring and it fails with "Command queue state error"
 * (seen in CI on a cluster, where CLUSTER SLOTS refreshes run all the time).
 * Here every line after +OK is a monitored command, so nothing can race.
 */
export interface MonitorTarget {
  host: string;
  port: number;
  username?: string | undefined;
  password?: string | undefined;
}

/**
 * A running monitor. Lines arrive after the commands' replies, so stop()
 * takes a marker command the caller sends through its own client: it
 * resolves once the marker came by (every command sent before it was seen).
 */
export interface NodeMonitor {
  stop(sendMarker: (marker: string) => Promise<unknown>): Promise<void>;
}

/** monitorNode resolves once the server confirmed MONITOR; `onCommand` gets each command's arguments. */
export function monitorNode(
  target: MonitorTarget,
  onCommand: (args: string[]) => void,
): Promise<NodeMonitor> {
  return new Promise((resolve, reject) => {
    const socket: Socket = connect(target.port, target.host);
    let pending = ''; // bytes of a line not complete yet
    let replies = target.password === undefined ? 1 : 2; // +OK of AUTH, then of MONITOR
    const marker = `monitor-end-${randomUUID()}`;
    let markerSeen: (() => void) | undefined;
    const monitor: NodeMonitor = {
      async stop(sendMarker) {
        const seen = new Promise<void>((done) => (markerSeen = done));
        await sendMarker(marker);
        await seen;
        socket.destroy();
      },
    };
    socket.setEncoding('latin1'); // byte-exact: a command's \xHH escapes are decoded below
    socket.on('error', reject);
    socket.on('connect', () => {
      if (target.password !== undefined) {
        const login =
          target.username === undefined ? [target.password] : [target.username, target.password];
        socket.write(command(['AUTH', ...login]));
      }
      socket.write(command(['MONITOR']));
    });
    socket.on('data', (chunk: string) => {
      pending += chunk;
      let end: number;
      while ((end = pending.indexOf('\r\n')) >= 0) {
        const line = pending.slice(0, end);
        pending = pending.slice(end + 2);
        if (replies > 0) {
          if (!line.startsWith('+OK')) {
            socket.destroy();
            reject(new Error(`MONITOR refused: ${line}`));
            return;
          }
          if (--replies === 0) resolve(monitor);
          continue;
        }
        const args = monitoredArgs(line);
        if (args?.includes(marker)) markerSeen?.();
        else if (args !== undefined) onCommand(args);
      }
    });
  });
}

function command(args: string[]): string {
  return `*${args.length}\r\n${args.map((arg) => `$${Buffer.byteLength(arg)}\r\n${arg}\r\n`).join('')}`;
}

/**
 * monitoredArgs reads `+1700000000.000000 [0 127.0.0.1:5000] "set" "k" "v"`:
 * the quoted arguments, unescaped the way Redis escaped them (sdscatrepr).
 */
export function monitoredArgs(line: string): string[] | undefined {
  const start = line.indexOf('] "');
  if (!line.startsWith('+') || start < 0) return undefined;
  const args: string[] = [];
  let bytes: number[] | undefined;
  for (let index = start + 2; index < line.length; index++) {
    const char = line[index] as string;
    if (bytes === undefined) {
      if (char === '"') bytes = [];
      continue;
    }
    if (char === '"') {
      args.push(Buffer.from(bytes).toString('utf8'));
      bytes = undefined;
    } else if (char === '\\') {
      const next = line[++index] as string;
      if (next === 'x') {
        bytes.push(parseInt(line.slice(index + 1, index + 3), 16));
        index += 2;
      } else {
        bytes.push((ESCAPES[next] ?? next).charCodeAt(0));
      }
    } else {
      bytes.push(char.charCodeAt(0));
    }
  }
  return args;
}

const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t', a: '\x07', b: '\b' };
