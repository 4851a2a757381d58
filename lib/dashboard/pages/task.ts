// A task's page: what it is (kind, owner, lease end, cycles, due time), how
// it relates to templates (its template; a template's children; a gate's
// keys; the gates a trigger counts toward), its seven maps, and the actions.
import { idOf, taskFacts, type TaskFacts } from '../../task/facts.js';
import { Gate, Label } from '../../task/label.js';
import { isObjectId } from '../../task/object-id.js';
import { contextOf } from '../../engine/context-registry.js';
import { readChildren, readTaskById } from '../../engine/read.js';
import type { Task } from '../../task/task.js';
import { html, type Html } from '../html.js';
import { finishedPath, taskPath, tasksPath } from '../paths.js';
import { formatQuery } from '../query.js';
import { actionButton, readOnlyNote } from '../views/actions.js';
import { timeLabel } from '../views/format.js';
import { allMaps } from '../views/labels.js';
import { notice, type Page, type PageContext } from '../views/layout.js';
import { taskTable } from '../views/task-row.js';
import { outcomeSection } from '../views/outcome.js';
import type { AttemptRecord, TaskStatus } from '../../engine/status.js';
import type { PageDeps } from './deps.js';

/** How many children, or gate templates of a trigger, the page lists at most. */
const relatedMost = 20;
/** How many of a trigger's gate keys the page looks up templates for. */
const triggerKeysMost = 5;

const doneMessages: Record<string, string> = {
  created: 'The task was created.',
  reset: 'The cycles were reset: the task is offered again.',
};

/** readTask reads one task by id, undefined when there is none (or the id is not an object id). */
export function readTask(deps: PageDeps, id: string): Promise<Task | undefined> {
  return readTaskById(contextOf(deps.engine), id);
}

export async function taskPage(deps: PageDeps, id: string, done?: string): Promise<Page> {
  const { context } = deps;
  const task = await readTask(deps, id);
  // what the queue keeps of its runs: the outcome, the last failed attempt
  const status = isObjectId(id) ? await deps.engine.status(id) : undefined;
  if (task === undefined) {
    const held = heldPage(deps, id, status);
    if (held !== undefined) return held;
    const finished = finishedPage(deps, id, status);
    if (finished !== undefined) return finished;
    return {
      name: 'tasks',
      title: 'Task not found',
      status: 404,
      content: html`<h1>Task <code>${id}</code></h1>
        ${notice('info', 'There is no such task (any more): it was completed, deleted or never existed.')}
        <p><a href="${tasksPath(context, 'all')}">All tasks</a></p>`,
    };
  }
  const facts = taskFacts(task, context.now);
  const message = done === undefined ? undefined : doneMessages[done];
  return {
    name: 'tasks',
    title: `Task ${facts.id}`,
    content: html`
      ${message === undefined ? '' : notice('ok', message)}
      <h1>
        Task <code>${facts.id}</code>
        <span class="kind ${facts.kind}" data-kind="${facts.kind}">${facts.kind}</span>
      </h1>
      <dl class="facts">
        <dt>created</dt>
        <dd>${facts.created === undefined ? '—' : timeLabel(facts.created, context.now)}</dd>
        <dt>owner</dt>
        <dd data-fact="owner">
          ${facts.owner === undefined ? html`<span class="none">none</span>` : html`<code>${facts.owner}</code>`}
        </dd>
        <dt>lease end</dt>
        <dd>${timeLabel(facts.leaseEnd, context.now)}</dd>
        <dt>cycles</dt>
        <dd data-fact="cycles">
          ${facts.cycles}${facts.cancel === undefined ? ' (no circuit breaker)' : ` of ${facts.cancel} before it halts`}
        </dd>
        <dt>${facts.kind === 'cron' ? 'next tick' : 'due'}</dt>
        <dd>${timeLabel(facts.due, context.now)}</dd>
        ${
          facts.kind === 'cron'
            ? html`<dt>last tick</dt>
                <dd>${timeLabel(task.cron?.[Label.TickM1], context.now)}</dd>`
            : ''
        }
      </dl>
      ${actions(context, task, facts)} ${runs(context, facts, status)}
      <section class="relations">
        <h2>Relations</h2>
        ${await relations(deps, task, facts)}
      </section>
      <section>
        <h2>Labels</h2>
        ${allMaps(task)}
      </section>
    `,
  };
}

/** attemptLog writes a task's last ended attempts (at most 10), newest first. */
function attemptLog(
  context: PageContext,
  attempts: readonly AttemptRecord[] | undefined,
): Html | string {
  if (attempts === undefined || attempts.length === 0) return '';
  return html`<table class="attempt-log" data-attempt-log>
    <thead>
      <tr>
        <th>ended as</th>
        <th>started</th>
        <th>ended</th>
        <th>worker</th>
        <th>error</th>
      </tr>
    </thead>
    <tbody>
      ${[...attempts].reverse().map(
        (attempt) =>
          html`<tr data-attempt="${attempt.state}">
            <td>${attempt.state}</td>
            <td>
              ${attempt.startedAt === undefined ? html`<span class="none">—</span>` : timeLabel(attempt.startedAt, context.now)}
            </td>
            <td>${timeLabel(attempt.endedAt, context.now)}</td>
            <td>
              ${attempt.worker === undefined ? html`<span class="none">—</span>` : html`<code>${attempt.worker}</code>`}
            </td>
            <td>
              ${attempt.error === undefined ? html`<span class="none">—</span>` : html`<span class="error-message">${attempt.error}</span>`}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

/**
 * runs writes what the queue keeps of a task's attempts while it is in the
 * queue: how many ran (its cycles, the current one), the one running now, the
 * last failed one (error, stack, log, times), and the outcome its halt
 * recorded, and the last ended attempts with their times (at most 10).
 */
function runs(context: PageContext, facts: TaskFacts, status: TaskStatus | undefined): Html {
  const running = status?.state === 'owned';
  const attempts = html`<section class="attempts">
    <h2>Attempts</h2>
    <dl class="facts">
      <dt>attempts</dt>
      <dd data-fact="attempts">
        ${facts.cycles + (running ? 1 : 0)}${running ? ' (one running)' : ''}
      </dd>
      ${
        running
          ? html`<dt>running since</dt>
              <dd data-fact="since">${timeLabel(status.since, context.now)}</dd>
              <dt>on</dt>
              <dd><code>${status.worker ?? ''}</code></dd>`
          : ''
      }
    </dl>
    ${attemptLog(context, status?.attempts)}
  </section>`;
  return html`${attempts}
  ${status?.outcome === undefined ? '' : outcomeSection(context, 'Outcome of its halt', 'halt', status.outcome)}
  ${status?.failure === undefined ? '' : outcomeSection(context, 'Last failed attempt', 'failure', status.failure)}`;
}

/**
 * finishedPage: the page of a task that left the queue, while its outcome is
 * kept (outcomeRetention): how it ended, its error, log and result. Links
 * to a finished task stay alive as long as that.
 */
function finishedPage(
  deps: PageDeps,
  id: string,
  status: TaskStatus | undefined,
): Page | undefined {
  const { context } = deps;
  const outcome = status?.outcome;
  if (status === undefined || outcome === undefined || status.task !== undefined) return undefined;
  return {
    name: 'tasks',
    title: `Task ${id}`,
    content: html`
      <h1>
        Task <code>${id}</code>
        <span class="kind ${outcome.state}" data-kind="${outcome.state}">${outcome.state}</span>
      </h1>
      ${notice('info', 'The task has left the queue; the queue keeps its outcome for a while (the engine option outcomeRetention).')}
      ${outcomeSection(context, 'Outcome', 'outcome', outcome)}
      <p><a href="${finishedPath(context, outcome.state)}">Recently ${outcome.state}</a></p>
    `,
  };
}

/**
 * heldPage: the page of a task created `after` another, which is not in the
 * queue until that one completes (its record is the held entry, read by
 * status); undefined when the id is not held.
 */
function heldPage(deps: PageDeps, id: string, status: TaskStatus | undefined): Page | undefined {
  const { context } = deps;
  if (status?.state !== 'held' || status.task === undefined) return undefined;
  const after = status.after ?? '';
  return {
    name: 'tasks',
    title: `Task ${id}`,
    content: html`
      <h1>
        Task <code>${id}</code>
        <span class="kind held" data-kind="held">held</span>
      </h1>
      <p data-relation="after">
        Held: it joins the queue when the task
        <a href="${taskPath(context, after)}"><code>${after}</code></a> completes.
      </p>
      <section>
        <h2>Labels</h2>
        ${allMaps(status.task)}
      </section>
    `,
  };
}

function actions(context: PageContext, task: Task, facts: TaskFacts): Html {
  if (!context.write) return readOnlyNote();
  const path = taskPath(context, facts.id);
  return html`<div class="actions">
    ${actionButton(context, `${path}/delete`, 'Delete (bypass)', {
      name: 'delete',
      danger: true,
      confirm: 'Delete this task without its owner? A trigger task counts toward its gates.',
    })}
    ${
      task.core?.[Label.Cancel] === undefined
        ? ''
        : actionButton(context, `${path}/cycles`, 'Reset cycles', {
            name: 'cycles',
            confirm: 'Reset the cycles and owner of this task, so it is offered again?',
          })
    }
  </div>`;
}

async function relations(deps: PageDeps, task: Task, facts: TaskFacts): Promise<Html> {
  const { context, engine } = deps;
  const parts: Html[] = [];
  if (facts.template !== undefined)
    parts.push(
      html`<p data-relation="template">
        Emitted by the template
        <a href="${taskPath(context, facts.template)}"><code>${facts.template}</code></a
        >.
      </p>`,
    );
  const root = Object.fromEntries(
    Object.entries(task.root ?? {}).filter(([key]) => key !== Label.Object),
  );
  if (Object.keys(root).length > 0)
    parts.push(
      html`<p data-relation="root">
        Obsolete once another task's meta has its root labels:
        <a href="${tasksPath(context, 'all', formatQuery({ meta: root }))}"
          >tasks whose meta has them</a
        >.
      </p>`,
    );
  if (facts.kind === 'cron') {
    const children = await readChildren(contextOf(engine), facts.id, relatedMost);
    parts.push(
      html`<h3>Children in the queue</h3>
        ${taskTable(context, children, 'No child of this template is in the queue.')}`,
    );
  }
  if (facts.kind === 'gate') parts.push(gateKeys(context, facts));
  if (facts.triggers) parts.push(await triggerGates(deps, facts));
  if (parts.length === 0) return html`<p class="none">No template, root or gate.</p>`;
  return html`${parts}`;
}

function gateKeys(context: PageContext, facts: TaskFacts): Html {
  return html`<h3>Gate keys</h3>
    <table class="gate-keys">
      <thead>
        <tr>
          <th>key</th>
          <th>state</th>
          <th></th>
        </tr>
      </thead>
      <tbody>
        ${facts.gateKeys.map(
          ({ key, value }) =>
            html`<tr data-gate-key="${key}">
              <td><code>${key}</code></td>
              <td>
                <span class="gate ${value === Gate.Deleted ? 'deleted' : 'waiting'}">${value}</span>
              </td>
              <td>
                <a
                  href="${tasksPath(context, 'all', formatQuery({ gate: { [key]: Gate.Trigger } }))}"
                  >triggers</a
                >
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
    <p class="note">
      A key is <em>waiting</em> until a task with the same key and the value <code>trigger</code> is
      deleted, then <em>deleted</em>; when none waits, the template emits a task and every key waits
      again.
    </p>`;
}

async function triggerGates(deps: PageDeps, facts: TaskFacts): Promise<Html> {
  const keys = facts.gateKeys
    .filter(({ value }) => value === Gate.Trigger)
    .slice(0, triggerKeysMost);
  const found = new Map<string, Task>();
  for (const { key } of keys) {
    const page = await deps.engine.tasks({
      state: 'gate',
      query: { gate: { [key]: '*' } },
      limit: relatedMost,
    });
    for (const template of page.tasks) found.set(idOf(template), template);
  }
  return html`<h3>Gate templates this trigger counts toward</h3>
    ${taskTable(deps.context, [...found.values()].slice(0, relatedMost), 'No gate template has its keys.')}`;
}
