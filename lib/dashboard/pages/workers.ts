// The workers page: each live worker's presence (engine.workers()), its
// handlers' labels, and the tasks it owns now.
import type { WorkerPresence } from '../../engine/presence.js';
import { idOf, taskFacts } from '../../task/facts.js';
import type { Task } from '../../task/task.js';
import { html, type Html } from '../html.js';
import { taskPath } from '../paths.js';
import { count, timeLabel } from '../views/format.js';
import { chips } from '../views/labels.js';
import type { Page, PageContext } from '../views/layout.js';
import { mapNames } from '../query.js';
import type { PageDeps } from './deps.js';

/** How many owned tasks the page reads (one page of the leases index). */
const ownedRead = 1_000;
/** How many of a worker's tasks the page lists. */
const tasksShown = 10;

export async function workersPage(deps: PageDeps): Promise<Page> {
  const { engine, context } = deps;
  const [workers, owned] = await Promise.all([
    engine.workers(),
    engine.tasks({ state: 'owned', limit: ownedRead }),
  ]);
  const byWorker = new Map<string, Task[]>();
  for (const task of owned.tasks) {
    const owner = taskFacts(task, context.now).owner;
    if (owner === undefined) continue;
    const list = byWorker.get(owner) ?? [];
    list.push(task);
    byWorker.set(owner, list);
  }
  return {
    name: 'workers',
    title: 'Workers',
    refreshEvery: 15_000,
    content: html`
      <h1>Workers <span class="subtitle">${workers.length} live</span></h1>
      ${
        workers.length === 0
          ? html`<p class="none">
              No live worker: no running Worker has a presence in this queue.
            </p>`
          : html`<table class="workers">
              <thead>
                <tr>
                  <th>worker</th>
                  <th>host / pid</th>
                  <th>started</th>
                  <th>heartbeat</th>
                  <th class="number">running / concurrency</th>
                  <th>handlers</th>
                  <th>tasks owned</th>
                </tr>
              </thead>
              <tbody>
                ${workers.map((worker) => workerRow(context, worker, byWorker.get(worker.worker) ?? []))}
              </tbody>
            </table>`
      }
      ${
        owned.cursor === undefined
          ? ''
          : html`<p class="note">
              Tasks owned: the first ${count(owned.tasks.length)} leases read.
            </p>`
      }
    `,
  };
}

function workerRow(context: PageContext, worker: WorkerPresence, tasks: readonly Task[]): Html {
  return html`<tr data-worker="${worker.worker}">
    <td><code>${worker.worker}</code></td>
    <td>${worker.host} / ${worker.pid}</td>
    <td>${timeLabel(worker.started, context.now)}</td>
    <td>${timeLabel(worker.heartbeat, context.now)}</td>
    <td class="number" data-fact="running">${worker.running} / ${worker.concurrency}</td>
    <td>
      <ul class="handlers">
        ${worker.handlers.map((labels) => html`<li>${handlerLabels(labels)}</li>`)}
      </ul>
    </td>
    <td>
      ${
        tasks.length === 0
          ? html`<span class="none">none</span>`
          : html`<ul class="ids">
              ${tasks.slice(0, tasksShown).map(
                (task) =>
                  html`<li>
                    <a href="${taskPath(context, idOf(task))}"><code>${idOf(task)}</code></a>
                  </li>`,
              )}
              ${tasks.length > tasksShown ? html`<li class="more">+${tasks.length - tasksShown}</li>` : ''}
            </ul>`
      }
    </td>
  </tr>`;
}

function handlerLabels(labels: Task | null): Html {
  if (labels === null) return html`<span class="any">any task (no labels)</span>`;
  return html`${mapNames
    .filter((name) => Object.keys(labels[name] ?? {}).length > 0)
    .map((name) => html`<span class="map-name">${name}</span> ${chips(labels[name])} `)}`;
}
