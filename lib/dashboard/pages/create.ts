// The create page: a task as JSON, posted to engine.create(). Offered only
// with write access; the form is not refreshed while it is being typed in.
import { html } from '../html.js';
import { csrfField, readOnlyNote } from '../views/actions.js';
import { notice, type Page, type PageContext } from '../views/layout.js';

/** The example the form starts with. */
const createExample = `{
  "meta": { "x.api.io/action": "example" }
}`;

export function createPage(context: PageContext, text = createExample, error?: string): Page {
  return {
    name: 'create',
    title: 'Create a task',
    live: false,
    status: error === undefined ? 200 : 400,
    content: html`
      <h1>Create a task</h1>
      ${error === undefined ? '' : notice('error', error)}
      ${
        context.write
          ? html`<form
              method="post"
              action="${context.base}/create"
              class="create"
              data-action="create"
            >
              ${csrfField(context)}
              <label for="task"
                >The task as JSON: its label maps (<code>meta</code> is required)</label
              >
              <textarea id="task" name="task" rows="12" spellcheck="false">${text}</textarea>
              <button type="submit">Create</button>
            </form>`
          : readOnlyNote()
      }
    `,
  };
}
