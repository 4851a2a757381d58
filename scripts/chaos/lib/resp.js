// Where a RESP reply ends in a buffer, so the chaos proxy can hold or swallow
// whole replies. RESP2 and the RESP3 types; no validation beyond framing.

const lineTypes = new Set(['+', '-', ':', '_', ',', '#', '(']);
const bulkTypes = new Set(['$', '!', '=']);
const aggregateTypes = new Map([
  ['*', 1],
  ['~', 1],
  ['>', 1],
  ['%', 2],
  ['|', 2],
]);

/**
 * replyEnd returns the offset just past the reply that starts at `start`, or
 * -1 when the buffer does not hold all of it yet.
 */
export function replyEnd(buffer, start = 0) {
  if (start >= buffer.length) return -1;
  const lineEnd = buffer.indexOf('\r\n', start);
  if (lineEnd < 0) return -1;
  const type = String.fromCharCode(buffer[start]);
  const afterLine = lineEnd + 2;
  if (lineTypes.has(type)) return afterLine;
  const count = Number(buffer.toString('latin1', start + 1, lineEnd));
  if (bulkTypes.has(type)) {
    if (count < 0) return afterLine;
    const end = afterLine + count + 2;
    return end <= buffer.length ? end : -1;
  }
  const per = aggregateTypes.get(type);
  if (per === undefined) throw new Error(`RESP: unknown type byte ${JSON.stringify(type)}`);
  let offset = afterLine;
  for (let index = 0; index < Math.max(0, count) * per; index++) {
    offset = replyEnd(buffer, offset);
    if (offset < 0) return -1;
  }
  return offset;
}
