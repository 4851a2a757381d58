import { RunContext } from '../../lib/worker/ensure-context.js';
import { LazyAbort } from '../../lib/worker/lease.js';

function context(controller = new LazyAbort()) {
  const logged: string[] = [];
  const made = new RunContext(
    controller,
    () => Promise.resolve(),
    () => Promise.resolve(),
    (line) => logged.push(line),
    () => {},
    () => {},
  );
  return { made, logged, controller };
}

describe('RunContext', () => {
  it('has the own enumerable properties of the object literal it replaces, in order', () => {
    const { made } = context();
    expect(Object.keys(made)).toEqual([
      'signal',
      'extend',
      'progress',
      'log',
      'spawn',
      'rateLimit',
    ]);
    expect(Reflect.ownKeys(made)).toEqual([
      'signal',
      'extend',
      'progress',
      'log',
      'spawn',
      'rateLimit',
    ]);
    const signal = Object.getOwnPropertyDescriptor(made, 'signal');
    expect(signal).toMatchObject({ enumerable: true, configurable: true });
    expect(typeof signal?.get).toBe('function');
  });

  it("reads each run's own signal, also when destructured or spread", () => {
    const first = context();
    const second = context();
    const { signal } = first.made;
    expect(signal).toBe(first.controller.signal);
    // a handler may spread its context: the copy carries the signal read then
    // eslint-disable-next-line @typescript-eslint/no-misused-spread
    expect({ ...second.made }.signal).toBe(second.controller.signal);
    expect(signal).not.toBe(second.made.signal);
    second.controller.abort(new Error('stop'));
    expect(second.made.signal.aborted).toBe(true);
    expect(first.made.signal.aborted).toBe(false);
  });

  it('calls its actions unbound, as the closures they are', () => {
    const { made, logged } = context();
    const { log } = made;
    log('one');
    made.log('two');
    expect(logged).toEqual(['one', 'two']);
  });
});
