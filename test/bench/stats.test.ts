import { theilSen } from '../../bench/stats.js';

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
