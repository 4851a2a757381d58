// A task as one row of a list: id, state, meta, owner, cycles, due time.
import { taskFacts } from '../../task/facts.js';
import type { Task } from '../../task/task.js';
import { html, type Html } from '../html.js';
import { taskPath } from '../paths.js';
import { chips } from './labels.js';
import { timeLabel } from './format.js';
import type { PageContext } from './layout.js';

/** taskTable writes tasks as a table, or says there are none. */
export function taskTable(context: PageContext, tasks: readonly Task[], empty: string): Html {
  if (tasks.length === 0) return html`<p class="none">${empty}</p>`;
  return html`<table class="tasks">
    <thead>
      <tr>
        <th>id</th>
        <th>state</th>
        <th>meta</th>
        <th>owner</th>
        <th class="number">cycles</th>
        <th>due</th>
      </tr>
    </thead>
    <tbody>
      ${tasks.map((task) => taskRow(context, task))}
    </tbody>
  </table>`;
}

function taskRow(context: PageContext, task: Task): Html {
  const facts = taskFacts(task, context.now);
  return html`<tr data-task="${facts.id}">
    <td>
      <a href="${taskPath(context, facts.id)}"><code>${facts.id}</code></a>
    </td>
    <td><span class="kind ${facts.kind}">${facts.kind}</span></td>
    <td class="meta">${chips(task.meta)}</td>
    <td>
      ${facts.owner === undefined ? html`<span class="none">—</span>` : html`<code>${facts.owner}</code>`}
    </td>
    <td class="number">${facts.cycles}${facts.cancel === undefined ? '' : ` / ${facts.cancel}`}</td>
    <td>
      ${facts.due === undefined ? html`<span class="none">—</span>` : timeLabel(facts.due, context.now)}
    </td>
  </tr>`;
}
