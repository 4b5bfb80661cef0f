/** Small helpers for benchmark figures: medians, not means (machines here are shared and noisy). */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** The 99th percentile, nearest rank: the value 99% of the samples are at or under. */
export function p99(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.max(0, Math.ceil(sorted.length * 0.99) - 1)]!;
}

export function ms(value: number): string {
  return `${value.toFixed(value < 10 ? 2 : 1)} ms`;
}

export function table(header: string[], rows: (string | number)[][]): string {
  const all = [header, ...rows.map((r) => r.map(String))];
  const widths = header.map((_, i) => Math.max(...all.map((r) => r[i]!.length)));
  return all.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ')).join('\n');
}

/** The median of `reps` timed runs of `run`, in milliseconds. */
export function time(reps: number, run: () => void): number {
  const out: number[] = [];
  for (let r = 0; r < reps; r++) {
    const start = performance.now();
    run();
    out.push(performance.now() - start);
  }
  return median(out);
}

/**
 * A line through `points` ([x, y]) that outliers do not tilt (Theil–Sen): the slope is the
 * median of the slopes between every two points of different x, the intercept the median of
 * `y − slope · x`. Undefined with fewer than two different x.
 */
export function theilSen(
  points: readonly (readonly [number, number])[],
): { slope: number; intercept: number } | undefined {
  const slopes: number[] = [];
  for (let i = 0; i < points.length; i++) {
    for (let j = i + 1; j < points.length; j++) {
      const [x1, y1] = points[i]!;
      const [x2, y2] = points[j]!;
      if (x1 !== x2) slopes.push((y2 - y1) / (x2 - x1));
    }
  }
  if (slopes.length === 0) return undefined;
  const slope = median(slopes);
  return { slope, intercept: median(points.map(([x, y]) => y - slope * x)) };
}
