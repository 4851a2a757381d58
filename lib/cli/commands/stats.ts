import { defineEngineCommand } from '../command.js';
import { capsTable, limitsTable } from '../flow.js';
import { duration, fields, json, table } from '../format.js';

/** `rescue stats`: the queue's counts by state, from its indexes (engine.stats()). */
export const statsCommand = defineEngineCommand({
  name: 'stats',
  summary: 'counts by state, the oldest claimable task, owners, live workers, caps, rate limits',
  description:
    "Counts the queue's tasks by state from its indexes (the same cost at 1M tasks as\nat 1k): claimable, owned, waiting (and due), halted, templates, broadcast;\nthe oldest claimable task, the workers owning tasks, live workers, and\nclaimable tasks no live worker's handler labels match; whether the queue is\npaused, the concurrency caps with their owned counts and the rate limits with\nthe claims of their current windows (the fullest values of each).",
  async run({ engine, target, io, json: asJson }) {
    const stats = await engine.stats();
    if (asJson) {
      io.out(json({ queue: target.queue, ...stats }));
      return;
    }
    const oldest = stats.oldestClaimable;
    io.out(
      fields([
        ['queue', `${engine.keyfmt()} on ${engine.listen()}`],
        ['at', stats.at.toISOString()],
        ['tasks', String(stats.tasks)],
        ...(stats.paused === undefined
          ? []
          : [['paused', `since ${stats.paused.toISOString()}`] as [string, string]]),
        ...stats.pausedQueries.map((paused): [string, string] => [
          'paused query',
          `${JSON.stringify(paused.query)} since ${paused.since.toISOString()}  (${paused.tasks} task${paused.tasks === 1 ? '' : 's'} aside)`,
        ]),
        [
          'claimable',
          `${stats.claimable}${oldest === undefined ? '' : `  (oldest ${oldest.id}, ${duration(oldest.ageMs)} old)`}`,
        ],
        [
          'owned',
          `${stats.owned}  (by ${stats.ownerCount} worker${stats.ownerCount === 1 ? '' : 's'})`,
        ],
        ['waiting', `${stats.waiting}  (${stats.due} due)`],
        ['halted', String(stats.halted)],
        ['cron templates', String(stats.cronTemplates)],
        ['gate templates', String(stats.gateTemplates)],
        ['broadcast', String(stats.broadcast)],
        ['held', String(stats.held)],
        ['live workers', String(stats.workers)],
        [
          'unmatched',
          `${stats.unmatched.count} of ${stats.unmatched.checked} claimable checked${stats.unmatched.ids.length === 0 ? '' : `  (${stats.unmatched.ids.join(', ')})`}`,
        ],
      ]),
    );
    if (stats.caps.length > 0) {
      io.out('');
      io.out(capsTable(stats.caps));
    }
    if (stats.rateLimits.length > 0) {
      io.out('');
      io.out(limitsTable(stats.rateLimits, stats.at));
    }
    if (stats.owners.length > 0) {
      io.out('');
      io.out(
        table(stats.owners, [
          { header: 'owner', cell: (owner) => owner.worker },
          { header: 'tasks', cell: (owner) => String(owner.tasks) },
        ]),
      );
    }
  },
});
