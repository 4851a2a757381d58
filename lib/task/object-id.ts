/**
 * Object ids are `<13-digit creation ms>-<12-digit per-queue sequence>`, for
 * example `1697760001000-000000000042`. The create and emit scripts mint them
 * from the engine's `now` and one INCR counter per queue, so ids are unique,
 * sort in creation order as strings, and carry their creation instant.
 */
const objectIdPattern = /^(\d{13})-(\d{12})$/;

/** objectIdLength is the length of every object id. */
export const objectIdLength = 26;

/** formatObjectId writes an id from a creation instant in ms and a sequence number. */
export function formatObjectId(creationMs: number, sequence: number): string {
  if (!Number.isInteger(creationMs) || creationMs < 0 || creationMs > 9_999_999_999_999) {
    throw new RangeError(`object id: creation instant ${creationMs} ms does not fit 13 digits`);
  }
  if (!Number.isInteger(sequence) || sequence < 0 || sequence > 999_999_999_999) {
    throw new RangeError(`object id: sequence ${sequence} does not fit 12 digits`);
  }
  return `${String(creationMs).padStart(13, '0')}-${String(sequence).padStart(12, '0')}`;
}

/** creationTime reads the creation instant back from an object id, or undefined for a malformed id. */
export function creationTime(objectId: string): Date | undefined {
  const match = objectIdPattern.exec(objectId);
  return match === null ? undefined : new Date(Number(match[1]));
}

/**
 * creationMs reads the creation instant in ms from an object id without a
 * regular expression or a Date (the metrics read it per task), or undefined
 * for a malformed id.
 */
export function creationMs(objectId: string): number | undefined {
  if (objectId.length !== objectIdLength || objectId.charCodeAt(13) !== 45) return undefined;
  let ms = 0;
  for (let index = 0; index < 13; index++) {
    const digit = objectId.charCodeAt(index) - 48;
    if (digit < 0 || digit > 9) return undefined;
    ms = ms * 10 + digit;
  }
  return ms;
}

/** isObjectId tells whether a string has the object id form. */
export function isObjectId(value: string): boolean {
  return objectIdPattern.test(value);
}
