// The overview: counts by state (engine.stats()), the oldest claimable task,
// the queue over the last minutes, flow control (pause, caps and rate limits,
// docs/semantics.md §3.14–§3.16), owners, and claimable tasks nobody takes.
import type { CapStats, QueueStats, RateLimitStats } from '../../engine/stats.js';
import { html, type Html } from '../html.js';
import type { LiveFeed } from '../live.js';
import { bucketMs } from '../throughput.js';
import { chart } from '../views/chart.js';
import { count, duration, relative } from '../views/format.js';
import { notice, type Page } from '../views/layout.js';
import { taskPath, tasksPath } from '../paths.js';
import type { PageDeps } from './deps.js';
import { contextOf } from '../../engine/context-registry.js';
import { readTasksById } from '../../engine/read.js';
import type { Task } from '../../task/task.js';
import { chips } from '../views/labels.js';

/** How much of the feed's history the charts show. */
const chartSpanMs = 10 * 60_000;
/** The counts the queue's chart draws. */
const queueSeries = ['claimable', 'owned', 'waiting', 'halted'] as const;
/** The event kinds the throughput table counts, and those its chart draws. */
const throughputKinds = ['completed', 'created', 'claimed', 'failed', 'revoked'] as const;
const throughputSeries = ['completed', 'created'] as const;
/** The windows of the throughput table, ms. */
const throughputWindows = [60_000, 5 * 60_000, 15 * 60_000] as const;

export async function overviewPage(deps: PageDeps): Promise<Page> {
  const { engine, feed, context } = deps;
  let stats: QueueStats;
  try {
    stats = await engine.stats();
  } catch (error) {
    return {
      name: 'overview',
      title: 'Overview',
      status: 503,
      content: notice('error', `The queue cannot be read now: ${(error as Error).name}`),
    };
  }
  const card = (label: string, value: number, state: string | undefined, stat: string): Html => {
    const figure = html`<span class="figure" data-stat="${stat}">${count(value)}</span>`;
    return html`<li class="card">
      ${state === undefined ? figure : html`<a href="${tasksPath(context, state)}">${figure}</a>`}
      <span class="label">${label}</span>
    </li>`;
  };
  const oldest = stats.oldestClaimable;
  // the labels of the tasks the page names by id (one HMGET)
  const named = await readTasksById(contextOf(engine), [
    ...(oldest === undefined ? [] : [oldest.id]),
    ...stats.unmatched.ids,
  ]).catch(() => new Map<string, Task>());
  return {
    name: 'overview',
    title: 'Overview',
    refreshEvery: 10_000,
    content: html`
      ${feed.failure === undefined ? '' : notice('error', `Sampling failed: ${feed.failure}`)}
      <h1>Overview</h1>
      ${
        stats.paused === undefined
          ? ''
          : notice(
              'info',
              `The queue is paused since ${stats.paused.toISOString()}: no worker claims a task until it is resumed (rescue resume).`,
            )
      }
      ${stats.pausedQueries.map((paused) =>
        notice(
          'info',
          `Paused since ${paused.since.toISOString()}: the tasks that match ${JSON.stringify(paused.query)} (${count(paused.tasks)} set aside); no worker claims them until the query is resumed (rescue resume with the same query).`,
        ),
      )}
      <ul class="cards">
        ${card('tasks', stats.tasks, 'all', 'tasks')}
        ${card('claimable', stats.claimable, 'claimable', 'claimable')}
        ${card('owned', stats.owned, 'owned', 'owned')}
        ${card(`waiting (${count(stats.due)} due)`, stats.waiting, 'waiting', 'waiting')}
        ${card('halted', stats.halted, 'halted', 'halted')}
        ${card('cron templates', stats.cronTemplates, 'cron', 'cronTemplates')}
        ${card('gate templates', stats.gateTemplates, 'gate', 'gateTemplates')}
        ${card('broadcast', stats.broadcast, 'broadcast', 'broadcast')}
        ${card('held', stats.held, 'held', 'held')}
        ${card('live workers', stats.workers, undefined, 'workers')}
      </ul>
      <section class="oldest">
        <h2>Oldest claimable task</h2>
        ${
          oldest === undefined
            ? html`<p class="none" data-stat="oldest">nothing is claimable</p>`
            : html`<p>
                <a href="${taskPath(context, oldest.id)}"><code>${oldest.id}</code></a
                >, waiting
                <strong data-stat="oldest">${duration(oldest.ageMs)}</strong>
                <span class="meta">${chips(named.get(oldest.id)?.meta)}</span>
              </p>`
        }
      </section>
      <section class="history">
        <h2>The last minutes</h2>
        ${chart(
          feed.samples().map((sample) => ({ at: sample.at, values: { ...sample } })),
          queueSeries,
          chartSpanMs,
          'tasks by state',
        )}
      </section>
      <section class="throughput">
        <h2>Throughput</h2>
        ${throughput(feed, stats.at.getTime())}
      </section>
      ${
        stats.caps.length === 0
          ? ''
          : html`<section class="caps">
              <h2>Concurrency caps</h2>
              ${capsTable(stats.caps)}
            </section>`
      }
      ${
        stats.rateLimits.length === 0
          ? ''
          : html`<section class="rate-limits">
              <h2>Rate limits</h2>
              ${rateLimitsTable(stats.rateLimits, stats.at)}
            </section>`
      }
      <section class="owners">
        <h2>Owners</h2>
        ${owners(stats)}
      </section>
      <section class="unmatched">
        <h2>Claimable tasks nobody takes</h2>
        ${unmatched(deps, stats, named)}
      </section>
    `,
  };
}

/** more says how many values a table row leaves out, and whether the counts are all there. */
function more(shown: number, valueCount: number, exact: boolean): string {
  const left = valueCount - shown;
  return `${left > 0 ? ` and ${count(left)} more` : ''}${exact ? '' : ' (more values than stats() reads: counts of those read)'}`;
}

function capsTable(caps: readonly CapStats[]): Html {
  return html`<table>
    <thead>
      <tr>
        <th>meta key</th>
        <th class="number">concurrency</th>
        <th class="number">owned</th>
        <th class="number">values at the cap</th>
        <th>owned per value, the most first (at the cap: bold)</th>
      </tr>
    </thead>
    <tbody>
      ${caps.map(
        (cap) =>
          html`<tr data-cap="${cap.key ?? ''}">
            <td>${cap.key === undefined ? 'the whole queue' : html`<code>${cap.key}</code>`}</td>
            <td class="number">${count(cap.concurrency)}</td>
            <td class="number" data-cap-owned>${count(cap.owned)}</td>
            <td class="number" data-cap-full>
              ${
                cap.key === undefined
                  ? cap.full > 0
                    ? html`<strong>reached</strong>`
                    : '-'
                  : html`${count(cap.full)} of ${count(cap.valueCount)}`
              }
            </td>
            <td>
              ${cap.values.map((value) =>
                value.owned >= cap.concurrency
                  ? html`<strong data-value="${value.value}"
                      ><code>${value.value}</code> ${count(value.owned)}</strong
                    > `
                  : html`<span data-value="${value.value}"
                      ><code>${value.value}</code> ${count(value.owned)}</span
                    > `,
              )}${more(cap.values.length, cap.valueCount, cap.exact)}
            </td>
          </tr>`,
      )}
    </tbody>
  </table>`;
}

function rateLimitsTable(limits: readonly RateLimitStats[], now: Date): Html {
  return html`<table>
      <thead>
        <tr>
          <th>meta key</th>
          <th>limit</th>
          <th class="number">claims in the current windows</th>
          <th class="number">values closed</th>
          <th>claims per value this window, the most first (closed: bold)</th>
        </tr>
      </thead>
      <tbody>
        ${limits.map(
          (rate) =>
            html`<tr data-rate-limit="${rate.key ?? ''}">
              <td>
                ${rate.key === undefined ? 'the whole queue' : html`<code>${rate.key}</code>`}
              </td>
              <td>${rate.limit ?? 'none (held by context.rateLimit)'}</td>
              <td class="number" data-rate-counted>${count(rate.counted)}</td>
              <td class="number" data-rate-closed>
                ${count(rate.closed)} of ${count(rate.valueCount)}
              </td>
              <td>
                ${rate.values.map((window) => {
                  const text = html`${rate.key === undefined ? '' : html`<code>${window.value}</code> `}${
                      window.held ? 'held' : count(window.claims)
                    } <span class="relative">(reopens ${relative(window.reopensAt, now)})</span>`;
                  const closed =
                    window.held || (rate.claims !== undefined && window.claims >= rate.claims);
                  return closed
                    ? html`<strong data-value="${window.value}">${text}</strong> `
                    : html`<span data-value="${window.value}">${text}</span> `;
                })}${more(rate.values.length, rate.valueCount, rate.exact)}
              </td>
            </tr>`,
        )}
      </tbody>
    </table>
    <p class="note">
      A window counts the claims of a value from one multiple of its length to the next; a value is
      closed while its window is full or <code>context.rateLimit(ms)</code> holds it.
    </p>`;
}

function owners(stats: QueueStats): Html {
  if (stats.ownerCount === 0) return html`<p class="none">No worker owns a task.</p>`;
  return html`<table>
      <thead>
        <tr>
          <th>worker</th>
          <th class="number">tasks owned</th>
        </tr>
      </thead>
      <tbody>
        ${stats.owners.map(
          (owner) =>
            html`<tr>
              <td><code>${owner.worker}</code></td>
              <td class="number">${count(owner.tasks)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    ${
      stats.owners.length < stats.ownerCount
        ? html`<p class="note">${stats.owners.length} of ${stats.ownerCount} owners shown.</p>`
        : ''
    }`;
}

function unmatched(
  { context }: PageDeps,
  stats: QueueStats,
  named: ReadonlyMap<string, Task>,
): Html {
  const { checked, count: found, ids } = stats.unmatched;
  if (found === 0)
    return html`<p class="none">
      Every one of the ${checked} oldest claimable tasks matches a live worker's handlers.
    </p>`;
  return html`<p>
      <strong data-stat="unmatched">${found}</strong> of the ${checked} oldest claimable tasks match
      no live worker's handler labels:
    </p>
    <table class="unmatched">
      <thead>
        <tr>
          <th>id</th>
          <th>meta</th>
          <th>node</th>
        </tr>
      </thead>
      <tbody>
        ${ids.map(
          (id) =>
            html`<tr data-unmatched="${id}">
              <td>
                <a href="${taskPath(context, id)}"><code>${id}</code></a>
              </td>
              <td class="meta">${chips(named.get(id)?.meta)}</td>
              <td class="meta">${chips(named.get(id)?.node)}</td>
            </tr>`,
        )}
      </tbody>
    </table>
    <p class="note">
      A worker takes a task when one of its handlers' labels matches it; compare these labels with
      the workers' on the <a href="${context.base}/workers">Workers</a> page.
    </p>`;
}

/** throughput writes how many events of each kind the last minutes brought, and a chart of them. */
function throughput(feed: LiveFeed, nowMs: number): Html {
  const counted = feed.throughput;
  const since = counted.since;
  if (since === undefined)
    return html`<p class="none">
      Counting starts with the dashboard's first read of the queue's events.
    </p>`;
  const countedMs = nowMs - since;
  const cell = (kind: string, windowMs: number): Html => {
    const events = counted.total(kind, nowMs - windowMs);
    const perMinute = events / (Math.min(windowMs, Math.max(countedMs, bucketMs)) / 60_000);
    return html`<td class="number" data-throughput="${kind}-${windowMs / 60_000}">
      ${count(events)} <span class="rate">(${perMinute.toFixed(1)}/min)</span>
    </td>`;
  };
  return html`<table class="throughput">
      <thead>
        <tr>
          <th>events</th>
          ${throughputWindows.map((windowMs) => html`<th class="number">last ${duration(windowMs)}</th>`)}
        </tr>
      </thead>
      <tbody>
        ${throughputKinds.map(
          (kind) =>
            html`<tr>
              <th scope="row"><span class="event ${kind}">${kind}</span></th>
              ${throughputWindows.map((windowMs) => cell(kind, windowMs))}
            </tr>`,
        )}
      </tbody>
    </table>
    <p class="note">
      Counted from the queue's event stream (<code>engine.events()</code>) in buckets of
      ${duration(bucketMs)}, since ${new Date(since).toISOString()} (${duration(countedMs)} ago); a
      window longer than that counts only since then.
    </p>
    ${chart(
      counted
        .series(throughputSeries, nowMs - chartSpanMs, nowMs)
        .filter((point) => point.at >= since - bucketMs),
      throughputSeries,
      chartSpanMs,
      `events per ${duration(bucketMs)}`,
    )}`;
}
