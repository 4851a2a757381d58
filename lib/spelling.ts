/**
 * Spelling helpers for error messages that suggest what the caller meant:
 * the edit distance of two words, and the nearest of a list of candidates.
 */

/**
 * editDistance is the optimal string alignment distance of two words: the
 * number of insertions, deletions, substitutions and swaps of two adjacent
 * characters that turn one into the other.
 */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = [];
  for (let i = 0; i <= a.length; i += 1) {
    const row = [i];
    for (let j = 1; j <= b.length; j += 1) {
      if (i === 0) {
        row.push(j);
        continue;
      }
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const above = rows[i - 1] ?? [];
      let best = Math.min((above[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (above[j - 1] ?? 0) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        best = Math.min(best, (rows[i - 2]?.[j - 2] ?? 0) + 1);
      }
      row.push(best);
    }
    rows.push(row);
  }
  return rows[a.length]?.[b.length] ?? 0;
}

/**
 * nearest is the candidate closest to the word, or undefined when none is
 * within the distance a typo explains: one edit for words of up to four
 * characters, two for longer ones. Ties go to the earlier candidate.
 */
export function nearest(word: string, candidates: Iterable<string>): string | undefined {
  const most = word.length <= 4 ? 1 : 2;
  let best: string | undefined;
  let bestDistance = most + 1;
  for (const candidate of candidates) {
    const distance = editDistance(word, candidate);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
