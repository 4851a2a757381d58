import type { Engine } from '../../engine/engine.js';
import type { LiveFeed } from '../live.js';
import type { PageContext } from '../views/layout.js';

/** PageDeps is what a page reads from: the engine, the live feed, and the request's context. */
export interface PageDeps {
  readonly engine: Engine;
  readonly feed: LiveFeed;
  readonly context: PageContext;
}
