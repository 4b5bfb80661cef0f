/**
 * Every list the loop decides from is read whole (SPEC §3, "The loop's record"): page after page
 * until a page comes back short. Where GitHub itself stops listing (a PR's files at 3,000, its
 * commits at 250), the list is marked incomplete, and the caller fails closed.
 */

export const PER_PAGE = 100;

export interface Whole<T> {
  items: T[];
  /** False when GitHub lists no more than `cap` and the list reached it: there may be more. */
  complete: boolean;
}

/**
 * Reads pages 1, 2, … of a list of at most `cap` items (GitHub's own limit for that list;
 * otherwise a bound on how much the loop reads at all).
 */
export async function readWhole<T>(
  page: (n: number) => Promise<readonly T[]>,
  cap = 10_000,
): Promise<Whole<T>> {
  const items: T[] = [];
  for (let n = 1; ; n++) {
    const data = await page(n);
    items.push(...data);
    // At the cap GitHub may hold more than it lists: the list cannot be known whole.
    if (items.length >= cap) return { items: items.slice(0, cap), complete: false };
    if (data.length < PER_PAGE) return { items, complete: true };
  }
}
