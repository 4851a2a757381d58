// The templates page: cron templates with their expression and ticks (by
// next tick), gate templates with their keys armed (waiting) and done
// (deleted); each list a page at a time.
import { idOf } from '../../task/facts.js';
import { Gate, Label } from '../../task/label.js';
import type { Task } from '../../task/task.js';
import { html, type Html } from '../html.js';
import { taskPath } from '../paths.js';
import { timeLabel } from '../views/format.js';
import { chips } from '../views/labels.js';
import type { Page, PageContext } from '../views/layout.js';
import type { PageDeps } from './deps.js';

/** How many templates of each kind a page shows. */
const templatesPerPage = 50;

export interface TemplatesRequest {
  readonly cron: string | undefined;
  readonly gate: string | undefined;
}

export async function templatesPage(deps: PageDeps, request: TemplatesRequest): Promise<Page> {
  const { engine, context } = deps;
  const [cron, gate] = await Promise.all([
    engine.tasks({ state: 'cron', limit: templatesPerPage, ...cursor(request.cron) }),
    engine.tasks({ state: 'gate', limit: templatesPerPage, ...cursor(request.gate) }),
  ]);
  const more = (name: 'cron' | 'gate', next: string | undefined): Html => {
    if (next === undefined) return html``;
    const search = new URLSearchParams({ [name]: next });
    return html`<nav class="pages">
      <a rel="next" href="${context.base}/templates?${search.toString()}">More ${name} templates</a>
    </nav>`;
  };
  return {
    name: 'templates',
    title: 'Templates',
    refreshEvery: 30_000,
    content: html`
      <h1>Templates</h1>
      <section class="cron">
        <h2>Cron templates <span class="subtitle">by next tick</span></h2>
        ${cron.tasks.length === 0 ? html`<p class="none">No cron template on this page.</p>` : cronTable(context, cron.tasks)}
        ${more('cron', cron.cursor)}
      </section>
      <section class="gates">
        <h2>Gate templates</h2>
        ${gate.tasks.length === 0 ? html`<p class="none">No gate template on this page.</p>` : gateTable(context, gate.tasks)}
        ${more('gate', gate.cursor)}
      </section>
    `,
  };
}

function cursor(value: string | undefined): { cursor?: string } {
  return value === undefined || value === '' ? {} : { cursor: value };
}

function cronTable(context: PageContext, templates: readonly Task[]): Html {
  return templateTable(
    context,
    'cron',
    ['name', '@every', 'last tick', 'next tick'],
    templates,
    (task) =>
      html`<td data-schedule="${task.core?.[Label.Schedule] ?? ''}">
          ${task.core?.[Label.Schedule] ?? html`<span class="none">—</span>`}
        </td>
        <td><code>${task.cron?.[Label.Every]}</code></td>
        <td>${timeLabel(task.cron?.[Label.TickM1], context.now)}</td>
        <td>${timeLabel(task.cron?.[Label.TickP1], context.now)}</td>`,
  );
}

function gateTable(context: PageContext, templates: readonly Task[]): Html {
  return templateTable(context, 'gate', ['keys waiting', 'keys deleted'], templates, (task) => {
    const keys = Object.entries(task.gate ?? {});
    const waiting = keys.filter(([, value]) => value !== Gate.Deleted).map(([key]) => key);
    const deleted = keys.filter(([, value]) => value === Gate.Deleted).map(([key]) => key);
    return html`<td data-gate="waiting">${keyList(waiting)}</td>
      <td data-gate="deleted">${keyList(deleted)}</td>`;
  });
}

/** templateTable writes templates as a table: the id (a link), the kind's own columns, the meta. */
function templateTable(
  context: PageContext,
  kind: 'cron' | 'gate',
  headings: readonly string[],
  templates: readonly Task[],
  cells: (task: Task) => Html,
): Html {
  return html`<table class="templates ${kind}-templates">
    <thead>
      <tr>
        <th>id</th>
        ${headings.map((heading) => html`<th>${heading}</th>`)}
        <th>meta</th>
      </tr>
    </thead>
    <tbody>
      ${templates.map((task) => {
        const id = idOf(task);
        return html`<tr data-task="${id}">
          <td>
            <a href="${taskPath(context, id)}"><code>${id}</code></a>
          </td>
          ${cells(task)}
          <td class="meta">${chips(task.meta)}</td>
        </tr>`;
      })}
    </tbody>
  </table>`;
}

function keyList(keys: readonly string[]): Html {
  if (keys.length === 0) return html`<span class="none">—</span>`;
  return html`<ul class="keys">
    ${keys.map((key) => html`<li><code>${key}</code></li>`)}
  </ul>`;
}
