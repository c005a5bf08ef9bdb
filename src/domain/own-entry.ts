// Lookups by a name that came from outside (a URL, a form, a request body, an upstream's answer):
// `table[name]` also finds what every object inherits, so `__proto__`, `constructor`, `toString` or
// `hasOwnProperty` would "match" and hand back Object.prototype or a function. Only the table's own
// entries count here.

/** `table[name]` when it is the table's own entry; undefined for anything inherited. */
export function ownEntry<V>(table: Readonly<Record<string, V>>, name: string): V | undefined {
  return Object.hasOwn(table, name) ? table[name] : undefined;
}

/** Names every plain object answers to without owning them: the cases a lookup test must cover. */
export const INHERITED_NAMES = [
  '__proto__',
  'constructor',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupGetter__',
] as const;
