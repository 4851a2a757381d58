import { readClaimReplies } from '../../lib/engine/complete-claim.js';

describe('readClaimReplies', () => {
  it("reads complete-claim.lua's flat answer back into one array per answer", () => {
    const ran = [1, 'task', 'id-1', '{}', '3:0', '', 'lean', ''];
    const none = [0, 'none', '', '', '3:0', '', '', ''];
    expect(
      readClaimReplies([...ran, 'error', 'TASK_OUTDATED: gone', ...none, 'later', 'counts', 0, 2]),
    ).toEqual([ran, ['error', 'TASK_OUTDATED: gone'], none, ['later'], ['counts', 0, 2]]);
    expect(readClaimReplies([])).toEqual([]);
  });

  it('stops at a value of no known form, or at an answer cut short', () => {
    expect(readClaimReplies(['later', 'what', 'later'])).toEqual([['later']]);
    expect(readClaimReplies(['later', 1, 'task'])).toEqual([['later']]);
    expect(readClaimReplies(['error'])).toEqual([]);
  });
});
