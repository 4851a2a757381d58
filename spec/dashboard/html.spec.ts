import { escapeHtml, html, Html, join } from '../../lib/dashboard/html.js';

describe('the html template tag', () => {
  it('escapes every string it is given, in content and in attributes', () => {
    const hostile = `<script>alert("x")</script>' onmouseover='x' &amp;`;
    const out = html`<p title="${hostile}">${hostile}</p>`.text;
    expect(out).not.toContain('<script>');
    expect(out).not.toContain(`"x"`);
    expect(out).not.toContain(`'x'`);
    expect(out).toBe(`<p title="${escapeHtml(hostile)}">${escapeHtml(hostile)}</p>`);
    expect(escapeHtml(hostile)).toBe(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;&#39; onmouseover=&#39;x&#39; &amp;amp;',
    );
  });

  it('inserts markup it made as it is, and joins arrays', () => {
    const inner = html`<b>${'<i>'}</b>`;
    const out = html`<div>${[inner, 'a&b', 3]}</div>`;
    expect(out).toBeInstanceOf(Html);
    expect(out.text).toBe('<div><b>&lt;i&gt;</b>a&amp;b3</div>');
  });

  it('leaves out undefined, null and false, and writes numbers and true', () => {
    expect(html`${undefined}|${null}|${false}|${true}|${0}`.text).toBe('|||true|0');
  });

  it('writes any other value as escaped JSON', () => {
    expect(html`${{ a: '<' }}`.text).toBe('{&quot;a&quot;:&quot;&lt;&quot;}');
  });

  it('joins markup with an escaped separator', () => {
    expect(join([html`<i>1</i>`, html`<i>2</i>`], '<&>').text).toBe(
      '<i>1</i>&lt;&amp;&gt;<i>2</i>',
    );
  });
});
