import { readClaimReplies } from '../../lib/engine/complete-claim.js';

describe('readClaimReplies', () => {
  it("reads complete-claim.lua's flat answer back into one array per answer", () => {
    const ran = [1, 'task', 'id-1', '{}', '3:0', '', '', ''];
    const none = [0, 'none', '', '', '3:0', '', '', ''];
    expect(
      readClaimReplies(
        [...ran, 'error', 'TASK_OUTDATED: gone', ...none, 'later', 'counts', 0, 2],
        '3:0',
      ),
    ).toEqual([ran, ['error', 'TASK_OUTDATED: gone'], none, ['later'], ['counts', 0, 2]]);
    expect(readClaimReplies([], '3:0')).toEqual([]);
  });

  it("reads a lean claim's three values as a claim with the floors sent and resume 'lean'", () => {
    expect(readClaimReplies(['l1', 'id-1', '{"core":{}}', 'l0', 'id-2', '{}'], '7:2')).toEqual([
      [1, 'task', 'id-1', '{"core":{}}', '7:2', '', 'lean', ''],
      [0, 'task', 'id-2', '{}', '7:2', '', 'lean', ''],
    ]);
  });

  it('stops at a value of no known form, or at an answer cut short', () => {
    expect(readClaimReplies(['later', 'what', 'later'], '0:0')).toEqual([['later']]);
    expect(readClaimReplies(['later', 1, 'task'], '0:0')).toEqual([['later']]);
    expect(readClaimReplies(['later', 'l1', 'id-1'], '0:0')).toEqual([['later']]);
    expect(readClaimReplies(['error'], '0:0')).toEqual([]);
  });
});
