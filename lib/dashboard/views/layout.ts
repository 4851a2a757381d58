// The page shell: head, navigation, the live status, and the region the
// browser script refreshes when the queue changes.
import { html, type Html } from '../html.js';

/** PageContext is what every page knows about the request it answers. */
export interface PageContext {
  /** where the dashboard is mounted ('' or '/path', no trailing slash) */
  readonly base: string;
  /** actions allowed (`write: true`) */
  readonly write: boolean;
  /** the CSRF token the forms of this response carry */
  readonly csrf: string;
  /** the instant the page is rendered at (the dashboard's clock) */
  readonly now: Date;
  /** the queue's key prefix, `rescue.io:{<queue>}` */
  readonly queue: string;
  /** ms between polls when Server-Sent Events are not available */
  readonly pollInterval: number;
}

/** PageName is a page of the navigation. */
type PageName = 'overview' | 'tasks' | 'finished' | 'templates' | 'workers' | 'events' | 'create';

/** Page is what a page renders: the shell fills in the rest. */
export interface Page {
  readonly name: PageName;
  readonly title: string;
  /** markup above the live region, kept while it refreshes (forms being typed in) */
  readonly controls?: Html;
  /** the live region: refreshed in place when the queue changes */
  readonly content: Html;
  /** refresh the region when the queue changes (default true) */
  readonly live?: boolean;
  /** refresh the region when the queue changes (default true; the events page adds rows instead) */
  readonly refreshOnChange?: boolean;
  /** refresh the region at least this often, ms (ages that grow without a change) */
  readonly refreshEvery?: number;
  readonly status?: number;
}

const navigation: readonly { name: PageName; label: string; path: string }[] = [
  { name: 'overview', label: 'Overview', path: '/' },
  { name: 'tasks', label: 'Tasks', path: '/tasks' },
  { name: 'finished', label: 'Finished', path: '/finished' },
  { name: 'templates', label: 'Templates', path: '/templates' },
  { name: 'workers', label: 'Workers', path: '/workers' },
  { name: 'events', label: 'Events', path: '/events' },
];

/** layout writes a whole page around a page's content. */
export function layout(context: PageContext, page: Page): Html {
  const { base } = context;
  const live = page.live ?? true;
  return html`<!doctype html>
    <html lang="en">
      <head>
        <meta charset="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="referrer" content="same-origin" />
        <title>${page.title} · rescue</title>
        <link rel="stylesheet" href="${base}/assets/dashboard.css" />
        <script src="${base}/assets/dashboard.js" defer></script>
      </head>
      <body
        data-page="${page.name}"
        data-live="${live ? `${base}/live` : ''}"
        data-poll="${context.pollInterval}"
        data-refresh-every="${page.refreshEvery ?? 0}"
        data-refresh-on-change="${page.refreshOnChange === false ? '0' : '1'}"
      >
        <header>
          <a class="brand" href="${base}/">rescue</a>
          <span class="queue" title="queue">${context.queue}</span>
          <nav>
            ${navigation.map(
              (item) =>
                html`<a
                  href="${base}${item.path}"
                  ${item.name === page.name ? html`aria-current="page"` : ''}
                  >${item.label}</a
                >`,
            )}
          </nav>
          <span class="mode ${context.write ? 'write' : 'read-only'}"
            >${context.write ? 'write' : 'read-only'}</span
          >
          <span id="live-status" data-state="${live ? 'connecting' : 'off'}"
            >${live ? 'connecting' : 'static'}</span
          >
        </header>
        ${page.controls}
        <main id="live-region">${page.content}</main>
      </body>
    </html> `;
}

/** notice writes a message box: `info`, `ok` or `error`. */
export function notice(kind: 'info' | 'ok' | 'error', message: Html | string): Html {
  return html`<p class="notice ${kind}" role="${kind === 'error' ? 'alert' : 'status'}">
    ${message}
  </p>`;
}
