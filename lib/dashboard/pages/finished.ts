// The lists of recently finished tasks: completed, failed (and timeout,
// cancelled, removed), read from the outcome records the queue keeps for
// the engine's outcomeRetention; each row links to the task's page, which
// shows the whole outcome (error, stack, log, result) while it is kept.
import { contextOf } from '../../engine/context-registry.js';
import type { Outcome } from '../../engine/outcome.js';
import { readRecentOutcomes } from '../../engine/read.js';
import { outcomeStates, type OutcomeState } from '../../task/state.js';
import { html, type Html } from '../html.js';
import { finishedPath, taskPath } from '../paths.js';
import { duration, timeLabel } from '../views/format.js';
import type { Page, PageContext } from '../views/layout.js';
import type { PageDeps } from './deps.js';

/** How many outcome records the page reads at most (newest first), and how many rows it shows. */
const outcomesRead = 1_000;
const rowsShown = 100;

/** The states each tab lists: `failed` includes the timeouts (a failed attempt that ran too long). */
const tabs: Record<string, readonly OutcomeState[]> = {
  completed: ['completed'],
  failed: ['failed', 'timeout'],
  cancelled: ['cancelled'],
  removed: ['removed'],
  all: outcomeStates,
};

export async function finishedPage(
  deps: PageDeps,
  stateParameter: string | undefined,
): Promise<Page> {
  const { context, engine } = deps;
  const tab =
    stateParameter !== undefined && Object.hasOwn(tabs, stateParameter) ? stateParameter : 'all';
  const states = new Set<string>(tabs[tab]);
  // read by when each record goes (failed outcomes may be kept longer), shown by when each ended
  const outcomes = (await readRecentOutcomes(contextOf(engine), outcomesRead))
    .filter((outcome) => states.has(outcome.state))
    .sort((a, b) => Date.parse(b.endedAt) - Date.parse(a.endedAt));
  const controls = html`<nav class="tabs filter">
    ${Object.keys(tabs).map(
      (name) =>
        html`<a
          href="${finishedPath(context, name === 'all' ? '' : name)}"
          class="${name === tab ? 'current' : ''}"
          data-tab="${name}"
          >${name}</a
        >`,
    )}
  </nav>`;
  return {
    name: 'finished',
    title: 'Finished',
    controls,
    content: html`
      <h1>Finished <span class="subtitle">${tab}, most recent first</span></h1>
      ${outcomeTable(context, outcomes.slice(0, rowsShown))}
      <p class="note">
        From the outcome records the queue keeps for the engine's
        <code>outcomeRetention</code>
        (${outcomes.length > rowsShown ? `${rowsShown} of ${outcomes.length} shown; ` : ''}the
        newest ${outcomesRead.toLocaleString('en-US')} records are read). A task the circuit breaker
        halted is still in the queue: see <a href="${context.base}/tasks?state=halted">halted</a>.
      </p>
    `,
  };
}

function outcomeTable(context: PageContext, outcomes: readonly Outcome[]): Html {
  if (outcomes.length === 0) return html`<p class="none">No outcome of this kind is kept.</p>`;
  return html`<table class="outcomes">
    <thead>
      <tr>
        <th>id</th>
        <th>state</th>
        <th>ended</th>
        <th class="number">ran</th>
        <th>worker</th>
        <th class="number">cycles</th>
        <th>error or result</th>
      </tr>
    </thead>
    <tbody>
      ${outcomes.map((outcome) => outcomeRow(context, outcome))}
    </tbody>
  </table>`;
}

function outcomeRow(context: PageContext, outcome: Outcome): Html {
  const started = outcome.startedAt === undefined ? NaN : Date.parse(outcome.startedAt);
  const ran = Date.parse(outcome.endedAt) - started;
  const summary =
    outcome.error !== undefined
      ? html`<span class="error-message">${cutText(outcome.error.message)}</span>`
      : Object.hasOwn(outcome, 'result')
        ? html`<code>${cutText(String(JSON.stringify(outcome.result)))}</code>`
        : html`<span class="none">—</span>`;
  return html`<tr data-outcome-row="${outcome.id}" data-state="${outcome.state}">
    <td>
      <a href="${taskPath(context, outcome.id)}"><code>${outcome.id}</code></a>
    </td>
    <td><span class="event ${outcome.state}">${outcome.state}</span></td>
    <td>${timeLabel(outcome.endedAt, context.now)}</td>
    <td class="number">${Number.isNaN(ran) || ran < 0 ? '—' : duration(ran)}</td>
    <td>
      ${outcome.worker === undefined ? html`<span class="none">—</span>` : html`<code>${outcome.worker}</code>`}
    </td>
    <td class="number">${outcome.cycles}</td>
    <td>${summary}</td>
  </tr>`;
}

function cutText(text: string): string {
  return text.length > 120 ? `${text.slice(0, 119)}…` : text;
}
