import { growth, verdict } from '../../scripts/soak/verdict.js';

describe('the soak verdict', () => {
  const minutes = Array.from({ length: 31 }, (_, index) => index); // 0 .. 30

  it('reads growth as the median of the last ten minutes against the median of the ten before', () => {
    // minutes 11..20 at 100, minutes 21..30 at 101.5
    const values = minutes.map((minute) => (minute <= 10 ? 50 : minute <= 20 ? 100 : 101.5));
    expect(growth(values, minutes)).toBeCloseTo(0.015);
  });

  it('does not read one high sample at the end as growth, but a raised window is', () => {
    const spike = minutes.map((minute) => (minute === 30 ? 110 : 100));
    expect(growth(spike, minutes)).toBe(0);
    const swing = minutes.map((minute) => (minute % 2 === 0 ? 19 : 26)); // presence keys coming and going
    expect(verdict({ keys: swing }, minutes).flat).toBe(true);
    const leak = minutes.map((minute) => 100 + minute * 0.3); // 3 % in ten minutes
    expect(growth(leak, minutes)).toBeGreaterThan(0.02);
    expect(verdict({ memory: leak }, minutes)).toEqual({ flat: false, growing: ['memory'] });
  });

  it('is flat below 2 % and growing at 2 % or more, naming the series', () => {
    const flat = minutes.map(() => 100);
    const growing = minutes.map((minute) => (minute > 20 ? 102 : 100));
    expect(verdict({ keys: flat }, minutes)).toEqual({ flat: true, growing: [] });
    expect(verdict({ keys: flat, memory: growing }, minutes)).toEqual({
      flat: false,
      growing: ['memory'],
    });
  });

  it('compares the halves of a run shorter than twenty minutes, and is not flat with one sample', () => {
    expect(growth([100, 100, 103, 103], [1, 2, 3, 4])).toBeCloseTo(0.03);
    expect(growth([100], [1])).toBeUndefined();
    expect(verdict({ keys: [100] }, [1]).flat).toBe(false);
  });
});
