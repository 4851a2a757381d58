// What the queue keeps of a task's runs, as the task page shows it: the
// outcome of a finished (or halted) task while it is kept, and the last
// failed attempt of a task still in the queue: its error (message, code,
// stack), its log, the worker and the times of the attempt.
import type { Outcome } from '../../engine/outcome.js';
import { html, type Html } from '../html.js';
import { taskPath } from '../paths.js';
import { duration } from './format.js';
import { timeLabel } from './format.js';
import type { PageContext } from './layout.js';

/**
 * outcomeSection writes an outcome under a heading (`Outcome`, `Last failed
 * attempt`); `data-outcome` names which, for tests and styles.
 */
export function outcomeSection(
  context: PageContext,
  heading: string,
  name: string,
  outcome: Outcome,
): Html {
  const started = outcome.startedAt === undefined ? undefined : Date.parse(outcome.startedAt);
  const ran =
    started === undefined || Number.isNaN(started)
      ? undefined
      : Date.parse(outcome.endedAt) - started;
  return html`<section class="outcome" data-outcome="${name}">
    <h2>
      ${heading}
      <span class="event ${outcome.state}" data-state="${outcome.state}">${outcome.state}</span>
    </h2>
    <dl class="facts">
      <dt>worker</dt>
      <dd>
        ${outcome.worker === undefined ? html`<span class="none">none</span>` : html`<code>${outcome.worker}</code>`}
      </dd>
      <dt>cycles</dt>
      <dd data-fact="outcome-cycles">${outcome.cycles}</dd>
      <dt>created</dt>
      <dd>${timeLabel(outcome.createdAt, context.now)}</dd>
      <dt>started</dt>
      <dd data-fact="started">${timeLabel(outcome.startedAt, context.now)}</dd>
      <dt>ended</dt>
      <dd data-fact="ended">
        ${timeLabel(outcome.endedAt, context.now)}${ran === undefined || ran < 0 ? '' : html` <span class="relative">after ${duration(ran)}</span>`}
      </dd>
    </dl>
    ${outcome.error === undefined ? '' : errorBlock(outcome.error)}
    ${
      Object.hasOwn(outcome, 'result')
        ? html`<h3>Result</h3>
            <pre class="result"><code>${JSON.stringify(outcome.result, null, 2)}</code></pre>`
        : ''
    }
    ${logBlock(outcome.log)}
    ${
      outcome.children.length === 0
        ? ''
        : html`<h3>Spawned</h3>
            <ul class="ids">
              ${outcome.children.map(
                (id) =>
                  html`<li>
                    <a href="${taskPath(context, id)}"><code>${id}</code></a>
                  </li>`,
              )}
            </ul>`
    }
  </section>`;
}

function errorBlock(error: NonNullable<Outcome['error']>): Html {
  return html`<h3>Error</h3>
    <p class="error-message" data-error="message">
      ${error.code === undefined ? '' : html`<code class="error-code">${error.code}</code> `}${error.message}
    </p>
    ${error.stack === undefined ? '' : html`<pre class="stack" data-error="stack"><code>${error.stack}</code></pre>`}`;
}

function logBlock(log: readonly string[]): Html {
  if (log.length === 0)
    return html`<h3>Log</h3>
      <p class="none" data-log="empty">No log line.</p>`;
  return html`<h3>Log</h3>
    <ol class="log" data-log="lines">
      ${log.map((line) => html`<li><code>${line}</code></li>`)}
    </ol>`;
}
