// The action forms: every action is a POST that carries the CSRF token, and
// is offered only when the dashboard was started with write access.
import { html, type Html } from '../html.js';
import type { PageContext } from './layout.js';

/** csrfField is the hidden field every action form carries. */
export function csrfField(context: PageContext): Html {
  return html`<input type="hidden" name="csrf" value="${context.csrf}" />`;
}

/** actionButton writes a form with one button that posts to `path`. */
export function actionButton(
  context: PageContext,
  path: string,
  label: string,
  options: { confirm?: string; name: string; danger?: boolean },
): Html {
  return html`<form
    method="post"
    action="${path}"
    class="action"
    data-action="${options.name}"
    ${options.confirm === undefined ? '' : html`data-confirm="${options.confirm}"`}
  >
    ${csrfField(context)}
    <button type="submit" class="${options.danger === true ? 'danger' : ''}">${label}</button>
  </form>`;
}

/** readOnlyNote says why there are no actions. */
export function readOnlyNote(): Html {
  return html`<p class="note read-only-note">
    Read-only: start the dashboard with <code>--write</code> (<code>write: true</code>) to delete
    tasks, reset cycles and create tasks.
  </p>`;
}
