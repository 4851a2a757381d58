// Label maps as the pages show them: a table per map on the task page, a few
// `key=value` chips in lists. Every key and value goes through `html`.
import { reservedScheme } from '../../task/label.js';
import type { Labels, Task } from '../../task/task.js';
import { html, type Html } from '../html.js';
import { mapNames } from '../query.js';

/** The longest value a list shows before it cuts it short. */
const chipValueMost = 60;

/** labelTable writes one map as a table of its keys and values. */
function labelTable(name: string, labels: Labels | undefined): Html {
  const entries = Object.entries(labels ?? {});
  return html`<section class="map" data-map="${name}">
    <h3>${name}</h3>
    ${
      entries.length === 0
        ? html`<p class="none">empty</p>`
        : html`<table class="labels">
            <tbody>
              ${entries.map(
                ([key, value]) =>
                  html`<tr class="${key.includes(reservedScheme) ? 'reserved' : ''}">
                    <th scope="row"><code>${key}</code></th>
                    <td><code>${value}</code></td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}

/** allMaps writes the seven maps of a task, empty ones included, and its payload when it has one. */
export function allMaps(task: Task): Html {
  return html`<div class="maps">
    ${mapNames.map((name) => labelTable(name, task[name]))}${payloadSection(task)}
  </div>`;
}

/** payloadSection writes a task's payload as indented JSON (escaped by `html`). */
function payloadSection(task: Task): Html | string {
  if (task.payload === undefined) return '';
  return html`<section class="map payload" data-map="payload">
    <h3>payload</h3>
    <pre><code>${JSON.stringify(task.payload, null, 2)}</code></pre>
  </section>`;
}

/** chips writes a map as `key=value` chips, at most `most` of them. */
export function chips(labels: Labels | undefined, most = 4): Html {
  const entries = Object.entries(labels ?? {});
  if (entries.length === 0) return html`<span class="none">—</span>`;
  const shown = entries
    .slice(0, most)
    .map(
      ([key, value]) =>
        html`<span class="chip"
          ><span class="key">${key}</span>=<span class="value"
            >${value.length > chipValueMost ? `${value.slice(0, chipValueMost)}…` : value}</span
          ></span
        >`,
    );
  const more = entries.length - shown.length;
  return html`${shown}${more > 0 ? html`<span class="more">+${more}</span>` : ''}`;
}
