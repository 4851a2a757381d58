import { readFileSync } from 'node:fs';
import { TaskCronError } from '../../lib/errors.js';
import { deferDuration, parseRate, schedule } from '../../lib/schedule/index.js';

// docs/interval-language.md quotes error messages for users; keep them true.
const page = readFileSync(new URL('../../docs/interval-language.md', import.meta.url), 'utf8');
const section = page.slice(page.indexOf('## Common mistakes'), page.indexOf('## Compared with'));
const rows = [...section.matchAll(/^\| `([^`]*)`([^|]*)\| `(.*)` *\|$/gm)].map(
  ([, expression = '', context = '', message = '']) => ({
    expression,
    context: context.trim(),
    message,
  }),
);

function messageOf(expression: string, context: string): string {
  try {
    if (context === 'as `@defer`') deferDuration(expression);
    else if (context === 'as a rate') parseRate(expression);
    else schedule(expression, new Date('2023-09-28T14:23:24.161Z'));
  } catch (error) {
    expect(error).toBeInstanceOf(TaskCronError);
    return (error as TaskCronError).message;
  }
  return 'accepted';
}

describe('docs/interval-language.md', () => {
  it('lists common mistakes', () => {
    expect(rows.length).toBeGreaterThanOrEqual(30);
  });

  it.each(rows)(
    'quotes the message for $expression $context',
    ({ expression, context, message }) => {
      expect(messageOf(expression, context)).toBe(message);
    },
  );
});
