// The order in which a task tries a model's routes. Consecutive entries that carry a `weight` form
// one group: the group is tried in a weighted random order (an entry of weight 3 comes first three
// times as often as one of weight 1), and the next entry of the group is the fallback when the
// first cannot take the task. An entry without a weight is a group of its own: plain ordered
// fallback, as before weights existed.

export interface Weighted {
  weight?: number;
}

/** Splits routes into groups of consecutive weighted entries; unweighted entries stand alone. */
export function weightGroups<T extends Weighted>(routes: readonly T[]): T[][] {
  const groups: T[][] = [];
  let current: T[] | undefined;
  for (const route of routes) {
    if (route.weight === undefined) {
      current = undefined;
      groups.push([route]);
    } else if (current) current.push(route);
    else {
      current = [route];
      groups.push(current);
    }
  }
  return groups;
}

/**
 * A weighted random order of one group, without replacement (Efraimidis–Spirakis: each entry draws
 * u^(1/w) and the largest keys go first), so the first place falls to each entry in proportion to
 * its weight and the rest follow as fallbacks.
 */
function weightedShuffle<T extends Weighted>(group: T[], random: () => number): T[] {
  if (group.length < 2) return group;
  return group
    .map((route) => ({ route, key: random() ** (1 / (route.weight ?? 1)) }))
    .sort((a, b) => b.key - a.key)
    .map((entry) => entry.route);
}

/** The routes in the order one submit tries them. `random` is injectable for tests. */
export function orderRoutes<T extends Weighted>(
  routes: readonly T[],
  random: () => number = Math.random,
): T[] {
  if (!routes.some((route) => route.weight !== undefined)) return [...routes];
  return weightGroups(routes).flatMap((group) => weightedShuffle(group, random));
}
