// The only way the dashboard writes HTML: a template tag that escapes every
// value it is given, unless the value is itself markup this tag made. Label
// keys and values come from whoever wrote the task, so they are hostile
// until escaped; no page builds HTML by string concatenation.

/** Html is markup that is safe to send: built by `html` from escaped values. */
export class Html {
  constructor(readonly text: string) {}
  toString(): string {
    return this.text;
  }
}

const entities: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** escapeHtml makes text safe in element content and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => entities[character] ?? character);
}

/**
 * html is a template tag: strings are escaped, numbers written, `undefined`,
 * `null` and `false` left out, arrays joined, and Html values inserted as
 * they are.
 *
 *     html`<td>${task.meta?.['kind']}</td>`   // '<script>' arrives as &lt;script&gt;
 */
export function html(strings: TemplateStringsArray, ...values: unknown[]): Html {
  let text = strings[0] ?? '';
  for (let index = 0; index < values.length; index++) {
    text += render(values[index]) + (strings[index + 1] ?? '');
  }
  return new Html(text);
}

function render(value: unknown): string {
  if (value instanceof Html) return value.text;
  if (value === undefined || value === null || value === false) return '';
  if (Array.isArray(value)) return value.map(render).join('');
  if (typeof value === 'string') return escapeHtml(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return escapeHtml(String(JSON.stringify(value)));
}

/** join writes Html parts with a separator between them. */
export function join(parts: readonly Html[], separator: Html | string): Html {
  const between = separator instanceof Html ? separator.text : escapeHtml(separator);
  return new Html(parts.map((part) => part.text).join(between));
}
