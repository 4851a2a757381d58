import fc from 'fast-check';
import { formatQuery, mapNames, parseQuery, QueryTextError } from '../../lib/dashboard/query.js';
import type { Task } from '../../lib/task/task.js';

describe('the label query text of the tasks page', () => {
  it('reads nothing from a blank text', () => {
    expect(parseQuery('')).toBeUndefined();
    expect(parseQuery('   \n')).toBeUndefined();
  });

  it('reads key=value pairs into meta, or into the map a key starts with', () => {
    expect(parseQuery('kind=mail  x.api.io/action=delete')).toEqual({
      meta: { kind: 'mail', 'x.api.io/action': 'delete' },
    });
    expect(
      parseQuery('core.task.rescue.io/worker=* node.addr.rescue.io/method=all gate.k=trigger'),
    ).toEqual({
      core: { 'task.rescue.io/worker': '*' },
      node: { 'addr.rescue.io/method': 'all' },
      gate: { k: 'trigger' },
    });
  });

  it('reads quoted keys and values with blanks, "=" and escaped quotes', () => {
    expect(parseQuery('title="a b=c" "odd key"=1 meta."core.x"=2 q="say \\"hi\\" \\\\"')).toEqual({
      meta: { title: 'a b=c', 'odd key': '1', 'core.x': '2', q: 'say "hi" \\' },
    });
  });

  it('takes the map name only from the unquoted start of a key', () => {
    expect(parseQuery('"core.x"=1')).toEqual({ meta: { 'core.x': '1' } });
  });

  it('keeps a key named __proto__ as a label', () => {
    const query = parseQuery('__proto__=x');
    expect(Object.keys(query?.meta ?? {})).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(query?.meta)).toBe(Object.prototype);
  });

  it('reads a task written as JSON', () => {
    expect(parseQuery(' {"root": {"a": "b"}} ')).toEqual({ root: { a: 'b' } });
  });

  it('says where a text cannot be read', () => {
    expect(() => parseQuery('kind')).toThrow(QueryTextError);
    expect(() => parseQuery('a=1 kind')).toThrow(/character 5/);
    expect(() => parseQuery('a="open')).toThrow(/not closed/);
    expect(() => parseQuery('{nope')).toThrow(/not valid JSON/);
    expect(() => parseQuery('["a"]')).toThrow(QueryTextError);
    expect(() => parseQuery(`a=${'x'.repeat(10_001)}`)).toThrow(/longer than/);
  });

  it('reads back what formatQuery writes, for any keys and values', () => {
    const labels = fc.dictionary(
      fc.string({ minLength: 1, maxLength: 12 }),
      fc.string({ maxLength: 12 }),
      {
        maxKeys: 3,
      },
    );
    const task = fc.record(Object.fromEntries(mapNames.map((name) => [name, labels])), {
      requiredKeys: [],
    }) as fc.Arbitrary<Task>;
    fc.assert(
      fc.property(task, (query) => {
        const nonEmpty = Object.fromEntries(
          Object.entries(query).filter(([, map]) => Object.keys(map as object).length > 0),
        );
        const text = formatQuery(query);
        const read = parseQuery(text);
        expect(read ?? {}).toEqual(nonEmpty);
      }),
      { numRuns: 500 },
    );
  });
});
