// The events page: the queue's recent events (engine.events()), newest
// first, and every new one as it arrives over the live stream (the browser
// adds the rows; the region is not refreshed on each change).
import { queueEventKinds } from '../../engine/events.js';
import { html, type Html } from '../html.js';
import { eventTasks, liveEvent, type LiveEvent } from '../live.js';
import { taskPath } from '../paths.js';
import type { Page, PageContext } from '../views/layout.js';
import type { PageDeps } from './deps.js';

/** How many events the page starts with, and keeps at most while it follows the queue. */
const eventsShown = 100;
const eventsKeptInPage = 500;

export async function eventsPage(deps: PageDeps, kindParameter: string | undefined): Promise<Page> {
  const { engine, context } = deps;
  const kind = queueEventKinds.find((name) => name === kindParameter);
  const read = (await engine.events({ limit: eventsShown })).filter(
    (event) => kind === undefined || event.kind === kind,
  );
  const tasks = await eventTasks(engine, read);
  const events = read.map((event) => liveEvent(event, tasks)).reverse();
  const controls = html`<form class="filter" method="get" action="${context.base}/events">
    <label
      >kind
      <select name="kind">
        <option value="">every kind</option>
        ${queueEventKinds.map(
          (name) =>
            html`<option value="${name}" ${name === kind ? html`selected` : ''}>${name}</option>`,
        )}
      </select>
    </label>
    <button type="submit">Show</button>
  </form>`;
  return {
    name: 'events',
    title: 'Events',
    controls,
    refreshOnChange: false,
    content: html`
      <h1>Events <span class="subtitle">newest first, as they happen</span></h1>
      <table class="events">
        <thead>
          <tr>
            <th>at</th>
            <th>kind</th>
            <th>task</th>
            <th>labels</th>
            <th>worker</th>
            <th>reason</th>
          </tr>
        </thead>
        <tbody
          id="events-body"
          data-task-base="${context.base}/task"
          data-kind-filter="${kind ?? ''}"
          data-most="${eventsKeptInPage}"
        >
          ${events.map((event) => eventRow(context, event))}
        </tbody>
      </table>
      ${
        events.length === 0
          ? html`<p class="none" id="events-empty">
              No event yet: new ones appear here as they happen.
            </p>`
          : ''
      }
      <p class="note">
        Times are the clock of the engine that caused each event, to the millisecond (UTC). Labels
        are the task's first meta labels while it is in the queue. The queue records events while
        someone reads them (this page, the dashboard, or
        <code>rescue tail</code>), and keeps about the last 10,000.
      </p>
    `,
  };
}

function eventRow(context: PageContext, event: LiveEvent): Html {
  return html`<tr data-event="${event.id}" data-kind="${event.kind}">
    <td><time datetime="${event.at}">${event.at}</time></td>
    <td><span class="event ${event.kind}">${event.kind}</span></td>
    <td>
      ${event.task === '' ? '' : html`<a href="${taskPath(context, event.task)}"><code>${event.task}</code></a>`}
    </td>
    <td class="meta">${event.labels ?? ''}</td>
    <td>${event.worker}</td>
    <td>${event.reason}</td>
  </tr>`;
}
