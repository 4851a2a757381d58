import { growth, verdict } from '../../scripts/soak/verdict.js';

describe('the soak verdict', () => {
  const minutes = Array.from({ length: 16 }, (_, index) => index); // 0 .. 15

  it('reads growth from the sample ten minutes before the last to the last', () => {
    // minute 5 is the window's start: 100; the last is 101.5
    const values = minutes.map((minute) => (minute < 5 ? 50 : minute === 15 ? 101.5 : 100));
    expect(growth(values, minutes)).toBeCloseTo(0.015);
  });

  it('is flat below 2 % and growing at 2 % or more, naming the series', () => {
    const flat = minutes.map(() => 100);
    const growing = minutes.map((minute) => (minute === 15 ? 102 : 100));
    expect(verdict({ keys: flat }, minutes)).toEqual({ flat: true, growing: [] });
    expect(verdict({ keys: flat, memory: growing }, minutes)).toEqual({
      flat: false,
      growing: ['memory'],
    });
  });

  it('uses the whole run when it is shorter than ten minutes, and is not flat with one sample', () => {
    expect(growth([100, 103], [1, 2])).toBeCloseTo(0.03);
    expect(growth([100], [1])).toBeUndefined();
    expect(verdict({ keys: [100] }, [1]).flat).toBe(false);
  });
});
