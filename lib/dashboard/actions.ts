// The actions: delete a task with bypass, reset its cycles, create a task.
// Each answers a POST that passed the write and CSRF checks (routes.ts) and
// redirects to a page that shows the result; a mistake comes back as a page
// saying what was wrong.
import { RescueError, TaskNotFoundError } from '../errors.js';
import { idOf } from '../task/facts.js';
import { Label } from '../task/label.js';
import type { Task } from '../task/task.js';
import { html, type Html } from './html.js';
import type { PageDeps } from './pages/deps.js';
import { createPage } from './pages/create.js';
import { readTask } from './pages/task.js';
import { taskPath } from './paths.js';
import { notice, type Page } from './views/layout.js';
import { bulkActOne, type BulkResult } from '../engine/bulk.js';
import { isObjectId } from '../task/object-id.js';
import { isTaskPageState } from '../task/state.js';
import { parseQuery, QueryTextError } from './query.js';

/** ActionResult is where to go next, or a page to show. */
export type ActionResult = { readonly redirect: string } | { readonly page: Page };

/** The longest task text the create form takes (the engine limits the task itself). */
const createTextMost = 1_048_576;

function gone(id: string): ActionResult {
  return {
    page: {
      name: 'tasks',
      title: 'Task not found',
      status: 404,
      content: html`<h1>Task <code>${id}</code></h1>
        ${notice('info', 'There is no such task (any more): nothing was changed.')}`,
    },
  };
}

function refused(error: RescueError): ActionResult {
  return {
    page: {
      name: 'tasks',
      title: 'Refused',
      status: 400,
      content: notice('error', `The engine refused: ${error.message}`),
    },
  };
}

/**
 * deleteAction deletes a task whatever its owner (bypass): it is removed, not
 * completed (its outcome is removed; the tasks held after it are removed
 * too). A paging value is left out of the copy, so the task is deleted
 * rather than requeued; a trigger task's delete counts toward its gate
 * templates, as any delete does.
 */
export async function deleteAction(deps: PageDeps, id: string): Promise<ActionResult> {
  const task = await readTask(deps, id);
  if (task === undefined) return gone(id);
  const sync = Object.fromEntries(
    Object.entries(task.sync ?? {}).filter(([key]) => key !== Label.Paging),
  );
  const copy: Task = { ...task, core: { ...task.core, [Label.Bypass]: 'true' }, sync };
  try {
    await deps.engine.delete(copy);
  } catch (error) {
    if (error instanceof TaskNotFoundError) return gone(id);
    if (error instanceof RescueError) return refused(error);
    throw error;
  }
  deps.feed.poke();
  return { redirect: `${deps.context.base}/tasks?done=deleted` };
}

/** cyclesAction resets a task's cycles and owner (engine.cycles): a halted task is offered again. */
export async function cyclesAction(deps: PageDeps, id: string): Promise<ActionResult> {
  const task = await readTask(deps, id);
  if (task === undefined) return gone(id);
  try {
    await deps.engine.cycles(task);
  } catch (error) {
    if (error instanceof TaskNotFoundError) return gone(id);
    if (error instanceof RescueError) return refused(error);
    throw error;
  }
  deps.feed.poke();
  return { redirect: `${taskPath(deps.context, id)}?done=reset` };
}

/** The bulk actions of the tasks page, and what each says it did. */
const bulkVerbs = {
  reset: { run: 'resetTasks', done: 'Reset the circuit breaker of' },
  remove: { run: 'removeTasks', done: 'Removed' },
  cancel: { run: 'cancelTasks', done: 'Cancelled' },
} as const;

/** How many tasks one bulk action of the dashboard acts on at most. */
const bulkMost = 10_000;

/**
 * bulkAction resets, removes or cancels every task of a state that a label
 * query matches (engine.resetTasks / removeTasks / cancelTasks), up to
 * bulkMost, and shows what it did.
 */
export async function bulkAction(
  deps: PageDeps,
  form: Record<string, unknown>,
): Promise<ActionResult> {
  const text = (name: string) => (typeof form[name] === 'string' ? form[name] : '');
  const verb = text('action');
  const state = text('bulk-state');
  const queryText = text('bulk-query');
  const back = `${deps.context.base}/tasks?${new URLSearchParams({ state, ...(queryText === '' ? {} : { query: queryText }) }).toString()}`;
  if (!Object.hasOwn(bulkVerbs, verb) || !isTaskPageState(state))
    return {
      page: bulkPage(back, 'error', 'This bulk action is not one the dashboard knows.', 400),
    };
  if (form['selection'] === '1')
    return selectionAction(deps, verb as keyof typeof bulkVerbs, form['id'], back);
  const { run, done } = bulkVerbs[verb as keyof typeof bulkVerbs];
  let result: BulkResult;
  try {
    const query = parseQuery(queryText);
    result = await deps.engine[run]({
      state,
      most: bulkMost,
      ...(query === undefined ? {} : { query }),
    });
  } catch (error) {
    if (
      error instanceof QueryTextError ||
      error instanceof RescueError ||
      error instanceof TypeError
    )
      return { page: bulkPage(back, 'error', `Nothing was done: ${error.message}`, 400) };
    throw error;
  }
  deps.feed.poke();
  const skipped =
    result.skipped.length === 0
      ? ''
      : ` ${result.skipped.length} left alone (${[...new Set(result.skipped.map((skip) => skip.reason))].join('; ')}).`;
  const more = result.more ? ` It stopped at ${bulkMost}: run it again for the rest.` : '';
  return {
    page: bulkPage(
      back,
      'ok',
      `${done} ${result.ids.length} task${result.ids.length === 1 ? '' : 's'} of ${state}${queryText === '' ? '' : ` matching ${queryText}`}.${skipped}${more}`,
    ),
  };
}

/** How many ids one action on a selection takes at most (a page of the list shows 50). */
const selectionMost = 500;

/**
 * selectionAction resets, removes or cancels the tasks an operator ticked
 * (the ids the form carries), checking each on the server: an id that is
 * not an object id, a task no longer in the queue, a task without a circuit
 * breaker to reset is left alone and named. Each task is its own atomic
 * step, as in a bulk action on a query.
 */
async function selectionAction(
  deps: PageDeps,
  verb: keyof typeof bulkVerbs,
  given: unknown,
  back: string,
): Promise<ActionResult> {
  const listed = Array.isArray(given) ? given : given === undefined ? [] : [given];
  const ids = [...new Set(listed.filter((id): id is string => typeof id === 'string'))];
  if (ids.length === 0)
    return { page: bulkPage(back, 'error', 'No task was selected: nothing was done.', 400) };
  if (ids.length > selectionMost)
    return {
      page: bulkPage(
        back,
        'error',
        `${ids.length} tasks were selected; one action takes at most ${selectionMost}: nothing was done.`,
        400,
      ),
    };
  const acted: string[] = [];
  const skipped: { id: string; reason: string }[] = [];
  for (const id of ids) {
    const task = isObjectId(id) ? await readTask(deps, id) : undefined;
    const reason =
      task === undefined
        ? isObjectId(id)
          ? 'not in the queue (any more)'
          : 'not a task id'
        : await bulkActOne(deps.engine, verb, task);
    if (reason === undefined) acted.push(id);
    else skipped.push({ id, reason });
  }
  if (acted.length > 0) deps.feed.poke();
  const { done } = bulkVerbs[verb];
  const message = `${done} ${acted.length} selected task${acted.length === 1 ? '' : 's'}.${skipped.length === 0 ? '' : ` ${skipped.length} left alone.`}`;
  return {
    page: bulkPage(
      back,
      'ok',
      message,
      200,
      html`<ul class="selection" data-selection-result>
        ${acted.map((id) => html`<li data-acted="${id}"><code>${id}</code></li>`)}
        ${skipped.map(
          ({ id, reason }) =>
            html`<li data-skipped="${id}"><code>${id}</code> left alone: ${reason}</li>`,
        )}
      </ul>`,
    ),
  };
}

function bulkPage(
  back: string,
  kind: 'ok' | 'error',
  message: string,
  status = 200,
  details: Html | string = '',
): Page {
  return {
    name: 'tasks',
    title: 'Bulk action',
    status,
    live: false,
    content: html`<h1>Bulk action</h1>
      <div data-bulk-result="${kind}">${notice(kind, message)}</div>
      ${details}
      <p><a href="${back}">Back to the tasks</a></p>`,
  };
}

/** createAction creates the task the form's JSON describes. */
export async function createAction(deps: PageDeps, text: string): Promise<ActionResult> {
  if (text.length > createTextMost)
    return {
      page: createPage(deps.context, '', `The task is longer than ${createTextMost} characters.`),
    };
  let task: unknown;
  try {
    task = JSON.parse(text);
  } catch (error) {
    return {
      page: createPage(deps.context, text, `This is not JSON: ${(error as Error).message}`),
    };
  }
  let created: Task;
  try {
    created = await deps.engine.create(task as Task);
  } catch (error) {
    if (error instanceof RescueError)
      return { page: createPage(deps.context, text, `The engine refused: ${error.message}`) };
    throw error;
  }
  deps.feed.poke();
  return { redirect: `${taskPath(deps.context, idOf(created))}?done=created` };
}
