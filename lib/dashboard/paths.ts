// The addresses of the dashboard's pages, under where it is mounted.
import type { PageContext } from './views/layout.js';

/** taskPath is the address of a task's page. */
export function taskPath(context: PageContext, id: string): string {
  return `${context.base}/task/${encodeURIComponent(id)}`;
}

/** tasksPath is the address of the tasks page with a state and a query text. */
export function tasksPath(context: PageContext, state: string, query = ''): string {
  const search = new URLSearchParams({ state });
  if (query !== '') search.set('query', query);
  return `${context.base}/tasks?${search.toString()}`;
}

/** finishedPath is the address of the list of recently finished tasks of a state ('' for every state). */
export function finishedPath(context: PageContext, state = ''): string {
  return state === ''
    ? `${context.base}/finished`
    : `${context.base}/finished?state=${encodeURIComponent(state)}`;
}
