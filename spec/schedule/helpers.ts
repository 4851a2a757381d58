// Shared by the schedule specs: instants written the way docs/semantics.md §4.7 writes them.

/** text writes an instant as formatTime does: UTC, milliseconds only when not zero. */
export function text(date: Date | number): string {
  return new Date(date).toISOString().replace(/\.?0*Z$/, 'Z');
}
