// A task as one row of a list: id, state, meta, owner, cycles, due time.
import { taskFacts } from '../../task/facts.js';
import type { Task } from '../../task/task.js';
import type { Outcome } from '../../engine/outcome.js';
import { html, type Html } from '../html.js';
import { taskPath } from '../paths.js';
import { chips } from './labels.js';
import { timeLabel } from './format.js';
import type { PageContext } from './layout.js';

/**
 * taskTable writes tasks as a table, or says there are none. With `select`
 * (the id of a form), each row has a checkbox that puts its id in that form.
 */
export function taskTable(
  context: PageContext,
  tasks: readonly Task[],
  empty: string,
  outcomes?: Readonly<Record<string, Outcome>>,
  select?: string,
): Html {
  if (tasks.length === 0) return html`<p class="none">${empty}</p>`;
  return html`<table class="tasks">
    <thead>
      <tr>
        ${
          select === undefined
            ? ''
            : html`<th class="select">
                <input
                  type="checkbox"
                  data-select-all
                  aria-label="Select every task of this page"
                />
              </th>`
        }
        <th>id</th>
        <th>state</th>
        <th>meta</th>
        <th>owner</th>
        <th class="number">cycles</th>
        <th>due</th>
        ${outcomes === undefined ? '' : html`<th>last error</th>`}
      </tr>
    </thead>
    <tbody>
      ${tasks.map((task) => taskRow(context, task, outcomes, select))}
    </tbody>
  </table>`;
}

function taskRow(
  context: PageContext,
  task: Task,
  outcomes: Readonly<Record<string, Outcome>> | undefined,
  select: string | undefined,
): Html {
  const facts = taskFacts(task, context.now);
  const error = outcomes?.[facts.id]?.error;
  return html`<tr data-task="${facts.id}">
    ${
      select === undefined
        ? ''
        : html`<td class="select">
            <input
              type="checkbox"
              name="id"
              value="${facts.id}"
              form="${select}"
              data-select
              aria-label="Select ${facts.id}"
            />
          </td>`
    }
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
    ${
      outcomes === undefined
        ? ''
        : html`<td data-last-error>
            ${error === undefined ? html`<span class="none">—</span>` : html`<span class="error-message">${error.message.length > 120 ? `${error.message.slice(0, 119)}…` : error.message}</span>`}
          </td>`
    }
  </tr>`;
}
