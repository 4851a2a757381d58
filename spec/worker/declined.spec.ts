import { DeclinedTasks } from '../../lib/worker/declined.js';

/** A DeclinedTasks on a clock the test moves. */
function declinedOn(forMs: number, most: number) {
  let nowMs = 1_000;
  const declined = new DeclinedTasks(forMs, most, () => nowMs);
  return { declined, advance: (ms: number) => (nowMs += ms) };
}

describe('DeclinedTasks', () => {
  it('skips a declined task for its period and forgets it when the period has passed', () => {
    const { declined, advance } = declinedOn(60_000, 10);
    declined.decline('a');
    advance(30_000);
    declined.decline('b');
    expect(declined.ids()).toEqual(['a', 'b']);
    advance(29_999);
    expect(declined.ids()).toEqual(['a', 'b']);
    advance(1); // a's minute is over
    expect(declined.ids()).toEqual(['b']);
    expect(declined.size).toBe(1);
    advance(30_000);
    expect(declined.ids()).toEqual([]);
  });

  it('starts the period again when a task is declined again', () => {
    const { declined, advance } = declinedOn(60_000, 10);
    declined.decline('a');
    advance(50_000);
    declined.decline('a');
    advance(50_000);
    expect(declined.ids()).toEqual(['a']);
    advance(10_000);
    expect(declined.ids()).toEqual([]);
  });

  it('holds at most `most` tasks, forgetting the one declined longest ago', () => {
    const { declined, advance } = declinedOn(60_000, 3);
    for (const id of ['a', 'b', 'c']) {
      declined.decline(id);
      advance(1);
    }
    declined.decline('a'); // declined again: now the newest
    declined.decline('d');
    expect(declined.ids()).toEqual(['c', 'a', 'd']);
  });

  it('skips for a minute and at most 1,000 tasks by default', () => {
    let nowMs = 0;
    const declined = new DeclinedTasks(undefined, undefined, () => nowMs);
    for (let index = 0; index < 1_001; index++) declined.decline(String(index));
    expect(declined.size).toBe(1_000);
    expect(declined.ids()[0]).toBe('1');
    nowMs = 59_999;
    expect(declined.size).toBe(1_000);
    nowMs = 60_000;
    expect(declined.ids()).toEqual([]);
  });
});
