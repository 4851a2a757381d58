// The tasks page: one state's tasks that match a label query, a page at a
// time (engine.tasks()); the filter form stays put while the list refreshes.
import type { TaskPage } from '../../engine/page.js';
import { isTaskPageState, taskPageStateNames, type TaskPageState } from '../../task/state.js';
import { RescueError } from '../../errors.js';
import { html, type Html } from '../html.js';
import { parseQuery, QueryTextError } from '../query.js';
import { notice, type Page } from '../views/layout.js';
import { taskTable } from '../views/task-row.js';
import type { PageDeps } from './deps.js';
import { csrfField } from '../views/actions.js';
import type { PageContext } from '../views/layout.js';

/** How many tasks a page of the list shows. */
const tasksPerPage = 50;

export interface TasksRequest {
  readonly state: string | undefined;
  readonly query: string | undefined;
  readonly cursor: string | undefined;
  /** a message code of an action that led here (`deleted`) */
  readonly done: string | undefined;
}

const doneMessages: Record<string, string> = {
  deleted: 'The task was deleted.',
};

export async function tasksPage(deps: PageDeps, request: TasksRequest): Promise<Page> {
  const { engine, context } = deps;
  const state: TaskPageState = isTaskPageState(request.state) ? request.state : 'all';
  const queryText = request.query ?? '';
  const controls = html`<form class="filter" method="get" action="${context.base}/tasks">
    <label
      >state
      <select name="state">
        ${taskPageStateNames.map(
          (name) =>
            html`<option value="${name}" ${name === state ? html`selected` : ''}>${name}</option>`,
        )}
      </select>
    </label>
    <label class="query"
      >label query
      <input
        type="search"
        name="query"
        value="${queryText}"
        placeholder="kind=mail core.task.rescue.io/worker=* (map.key=value; meta by default) or JSON"
        autocomplete="off"
      />
    </label>
    <button type="submit">Filter</button>
    ${context.write ? html`<a class="button" href="${context.base}/create">Create a task</a>` : ''}
  </form>`;
  const done = request.done === undefined ? undefined : doneMessages[request.done];
  let page: TaskPage;
  try {
    const query = parseQuery(queryText);
    page = await engine.tasks({
      state,
      limit: tasksPerPage,
      ...(query === undefined ? {} : { query }),
      ...(request.cursor === undefined || request.cursor === '' ? {} : { cursor: request.cursor }),
    });
  } catch (error) {
    if (!(
      error instanceof QueryTextError ||
      error instanceof RescueError ||
      error instanceof TypeError
    ))
      throw error;
    return {
      name: 'tasks',
      title: 'Tasks',
      status: 400,
      controls,
      content: notice('error', `This query cannot be used: ${error.message}`),
    };
  }
  const next = new URLSearchParams({ state });
  if (queryText !== '') next.set('query', queryText);
  const first = `${context.base}/tasks?${next.toString()}`;
  if (page.cursor !== undefined) next.set('cursor', page.cursor);
  return {
    name: 'tasks',
    title: 'Tasks',
    controls,
    content: html`
      ${done === undefined ? '' : notice('ok', done)}
      <h1>Tasks <span class="subtitle">${state}</span></h1>
      ${taskTable(
        context,
        page.tasks,
        'No task on this page.',
        page.outcomes,
        context.write ? selectionFormId : undefined,
      )}
      ${bulkForms(context, state, queryText)}
      <nav class="pages">
        ${
          request.cursor === undefined || request.cursor === ''
            ? ''
            : html`<a href="${first}">First page</a>`
        }
        ${
          page.cursor === undefined
            ? html`<span class="end">end of the list</span>`
            : html`<a rel="next" href="${context.base}/tasks?${next.toString()}">Next page</a>`
        }
      </nav>
      <p class="note">
        A page reads at most 1,000 index entries, so a query that skips most tasks may show a short
        page with a next one.
      </p>
    `,
  };
}

/** The id of the form the list's checkboxes put their ids in. */
const selectionFormId = 'bulk-selection';

/**
 * bulkForms offers the actions on the tasks ticked in the list (the
 * server checks each id), then the bulk actions on every task of the state the query
 * matches (not only this page's), with write access: reset (halted tasks),
 * cancel and delete. Each asks for a confirmation and carries the CSRF token.
 */
function bulkForms(context: PageContext, state: TaskPageState, queryText: string): Html | string {
  if (!context.write) return '';
  const what = `every task of ${state}${queryText === '' ? '' : ` matching ${queryText}`}`;
  const form = (action: string, label: string, confirm: string, danger = false) =>
    html`<form
      method="post"
      action="${context.base}/tasks/bulk"
      class="action"
      data-action="bulk-${action}"
      data-confirm="${confirm}"
    >
      ${csrfField(context)}
      <input type="hidden" name="action" value="${action}" />
      <input type="hidden" name="bulk-state" value="${state}" />
      <input type="hidden" name="bulk-query" value="${queryText}" />
      <button type="submit" class="${danger ? 'danger' : ''}">${label}</button>
    </form>`;
  const selected = (action: string, label: string, confirm: string, danger = false) =>
    html`<button
      type="submit"
      name="action"
      value="${action}"
      data-action="selection-${action}"
      data-confirm="${confirm}"
      class="${danger ? 'danger' : ''}"
    >
      ${label}
    </button>`;
  return html`<section class="bulk">
    <h2>Selected tasks</h2>
    <form
      id="${selectionFormId}"
      method="post"
      action="${context.base}/tasks/bulk"
      class="action selection"
      data-action="bulk-selection"
    >
      ${csrfField(context)}
      <input type="hidden" name="selection" value="1" />
      <input type="hidden" name="bulk-state" value="${state}" />
      <input type="hidden" name="bulk-query" value="${queryText}" />
      <p class="note">
        Tick tasks in the list, then act on them (<span data-selected-count>0</span> selected).
      </p>
      <div class="actions">
        ${selected('reset', 'Reset cycles of selected', 'Reset the circuit breaker of the selected tasks, so each is offered again?')}
        ${selected('cancel', 'Cancel selected', 'Cancel the selected tasks?', true)}
        ${selected('remove', 'Delete selected (bypass)', 'Delete the selected tasks, whoever owns them? They are removed, not completed.', true)}
      </div>
    </form>
    <h2>Bulk actions</h2>
    <p class="note">On ${what} (all pages, up to 10,000 tasks).</p>
    <div class="actions">
      ${form('reset', 'Reset cycles of all', `Reset the circuit breaker of ${what}, so each is offered again?`)}
      ${form('cancel', 'Cancel all', `Cancel ${what}?`, true)}
      ${form('remove', 'Delete all (bypass)', `Delete ${what}, whoever owns them? They are removed, not completed.`, true)}
    </div>
  </section>`;
}
