// Types of verdict.js, for the spec that tests the verdict (spec/soak/verdict.spec.ts).
export const windowMinutes: number;
export const flatLimit: number;
export function growth(values: number[], minutes: number[]): number | undefined;
export function verdict(
  series: Record<string, number[]>,
  minutes: number[],
): { flat: boolean; growing: string[] };
