/** "Did you mean …?" for misspelled keys: the closest candidate within a small edit distance. */
export function closestMatch(word: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestDistance = Infinity;
  for (const c of candidates) {
    const d = editDistance(word.toLowerCase(), c.toLowerCase());
    if (d < bestDistance) {
      bestDistance = d;
      best = c;
    }
  }
  if (best === undefined) return undefined;
  // Close in absolute terms and relative to the length: "x" is not a typo of "ui".
  const close = bestDistance <= Math.max(2, Math.floor(word.length / 3));
  const similar = bestDistance / Math.max(word.length, best.length) <= 0.4;
  return close && similar ? best : undefined;
}

/** Edit distance counting insertions, deletions, substitutions and adjacent transpositions ("grpahs"). */
export function editDistance(a: string, b: string): number {
  const rows: number[][] = Array.from({ length: a.length + 1 }, (_, i) =>
    Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let d = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d = Math.min(d, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = d;
    }
  }
  return rows[a.length]![b.length]!;
}
