import { GOAL, goalVerdict, theilSen } from '../../bench/stats.js';

describe('the line `npm run bench -- plans` fits through cold reads against size', () => {
  it('is the line the points lie on', () => {
    const line = theilSen([
      [1, 7],
      [2, 9],
      [5, 15],
      [10, 25],
    ]);
    expect(line).toEqual({ slope: 2, intercept: 5 });
  });

  it('is not tilted by one far point', () => {
    const line = theilSen([
      [1, 7],
      [2, 9],
      [3, 11],
      [4, 13],
      [5, 100],
    ])!;
    expect(line.slope).toBe(2);
    expect(line.intercept).toBe(5);
  });

  it('is no line without two sizes', () => {
    expect(theilSen([])).toBeUndefined();
    expect(
      theilSen([
        [3, 1],
        [3, 2],
      ]),
    ).toBeUndefined();
  });
});

describe('how `npm run bench -- plans` judges reading against its goal', () => {
  const files = [
    { kib: 6, above: 0.6 },
    { kib: 20, above: 0.25 },
    { kib: 70, above: 0.15 },
  ];

  it('meets it when a KiB and a 100 KiB plan are within it, and still says each file over it', () => {
    const said = goalVerdict({ slope: 0.12, fixed: 3, at100: 15 }, files);
    expect(said).toBe(
      'a KiB 0.12 ms (met); a 100 KiB plan 15.00 ms (met); file by file against the tiny plan 0.25 ms/KiB median, 2 of 3 over 0.2 (the 3.00 ms every real plan pays once is over 0.2 ms/KiB alone below 15 KiB)',
    );
  });

  it('does not meet it when a KiB costs more, or a 100 KiB plan takes longer', () => {
    expect(goalVerdict({ slope: 0.21, fixed: 0, at100: 21 }, files)).toMatch(
      /^a KiB 0\.21 ms \(NOT met\); a 100 KiB plan 21\.00 ms \(NOT met\);/,
    );
    // The slope within the goal, the fixed cost pushing a 100 KiB plan past it.
    expect(goalVerdict({ slope: 0.15, fixed: 6, at100: 21 }, files)).toMatch(
      /^a KiB 0\.15 ms \(met\); a 100 KiB plan 21\.00 ms \(NOT met\);/,
    );
    // Exactly at the goal is within it.
    expect(goalVerdict({ slope: GOAL.perKib, fixed: 0, at100: GOAL.at100 }, files)).toMatch(
      /^a KiB 0\.20 ms \(met\); a 100 KiB plan 20\.00 ms \(met\); file by file against the tiny plan 0\.25 ms\/KiB median, 2 of 3 over 0\.2$/,
    );
  });
});
