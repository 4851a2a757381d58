import { readFileSync } from 'node:fs';

// The README is a landing page: short, its first two commands are the ones a
// fresh clone runs, and its example is the program CI runs.

const read = (path: string): string => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');
const readme = read('README.md');

describe('README.md', () => {
  it('has at most 300 lines', () => {
    expect(readme.split('\n').length - 1).toBeLessThanOrEqual(300);
  });

  it('starts with the commands npm run demo, then npm test', () => {
    const first = readme.indexOf('```sh\n');
    const block = readme.slice(first + 6, readme.indexOf('```', first + 6));
    const commands = block
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => line.replace(/#.*$/, '').trim());
    expect(commands.slice(0, 2)).toEqual(['npm run demo', 'npm test']);
  });

  it('shows examples/readme.js as its example, line for line', () => {
    const program = read('examples/readme.js');
    const body = program.slice(program.indexOf('import {'));
    const start = readme.indexOf('```js\n') + 6;
    expect(readme.slice(start, readme.indexOf('```\n', start))).toBe(body);
  });
});
