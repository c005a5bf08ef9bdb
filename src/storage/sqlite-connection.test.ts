import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { isCheckViolation, isUniqueViolation } from './db.js';
import { openSqliteConnection, type SqliteConnection } from './sqlite-connection.js';
import { isBusy } from './sqlite-driver.js';

function failure(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected the statement to fail');
}

describe('the embedded SQLite connection', () => {
  let dir: string;
  let db: SqliteConnection;

  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'gengate-sqlite-'));
    db = openSqliteConnection(join(dir, 'test.db'));
    db.exec('pragma journal_mode = WAL; pragma busy_timeout = 0');
    db.exec('create table t (id text primary key, n integer not null check (n >= 0), tag text unique)');
  });

  afterEach(() => {
    db.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('tells statements that return rows from those that do not, and keeps one statement per SQL text', () => {
    expect(db.prepare('select * from t').reader).toBe(true);
    expect(db.prepare('insert into t (id, n) values (?, ?) returning id').reader).toBe(true);
    expect(db.prepare('insert into t (id, n) values (?, ?)').reader).toBe(false);
    expect(db.prepare('select * from t')).toBe(db.prepare('select * from t'));
  });

  it('binds an array of values and reports changes', () => {
    expect(db.prepare('insert into t (id, n, tag) values (?, ?, ?)').run(['a', 5, null])).toMatchObject({
      changes: 1,
    });
    expect(db.prepare('update t set n = n + ? where id = ?').run([1, 'a'])).toMatchObject({ changes: 1 });
    expect(db.prepare('select id, n, tag from t where id = ?').all(['a'])).toEqual([
      { id: 'a', n: 6, tag: null },
    ]);
    expect([...db.prepare('select id from t').iterate([])]).toEqual([{ id: 'a' }]);
  });

  it('builds rows with any column name as an own property, __proto__ included', () => {
    const [row] = db
      .prepare(`select 1 as "__proto__", 2 as "a b", 3 as "x""y", 4 as "constructor"`)
      .all([]) as Record<string, unknown>[];
    expect(Object.getPrototypeOf(row)).toBe(Object.prototype);
    expect(Object.entries(row)).toEqual([
      ['__proto__', 1],
      ['a b', 2],
      ['x"y', 3],
      ['constructor', 4],
    ]);
  });

  it('labels every value by its column after the schema changes, here or in another connection', () => {
    const insert = db.prepare('insert into t (id, n, tag) values (?, ?, ?)');
    insert.run(['a', 1, 'x']);
    const star = db.prepare('select * from t');
    const named = db.prepare('select tag, n, id from t');
    expect(star.all([])).toEqual([{ id: 'a', n: 1, tag: 'x' }]);
    expect(named.all([])).toEqual([{ tag: 'x', n: 1, id: 'a' }]);

    db.exec("alter table t add column extra text default 'e'");
    expect(star.all([])).toEqual([{ id: 'a', n: 1, tag: 'x', extra: 'e' }]);

    // Another process rebuilds the table with its columns in another order: same count, new places.
    const other = openSqliteConnection(join(dir, 'test.db'));
    try {
      other.exec(`create table t2 (extra text, tag text unique, n integer not null, id text primary key);
        insert into t2 (extra, tag, n, id) select extra, tag, n, id from t;
        drop table t; alter table t2 rename to t;`);
    } finally {
      other.close();
    }
    expect(star.all([])).toEqual([{ extra: 'e', tag: 'x', n: 1, id: 'a' }]);
    expect(Object.keys(star.all([])[0] as object)).toEqual(['extra', 'tag', 'n', 'id']);
    expect(named.all([])).toEqual([{ tag: 'x', n: 1, id: 'a' }]);
  });

  // The driver gives `run` errors SQLite's codes but `all` errors only a message: both must read the same.
  for (const how of ['run', 'all'] as const) {
    it(`names constraint violations as SQLite does, through ${how}`, () => {
      const insert = (values: unknown[]) =>
        how === 'run'
          ? db.prepare('insert into t (id, n, tag) values (?, ?, ?)').run(values)
          : db.prepare('insert into t (id, n, tag) values (?, ?, ?) returning id').all(values);
      insert(['a', 1, 'x']);
      const duplicateKey = failure(() => insert(['a', 1, 'y']));
      const duplicateTag = failure(() => insert(['b', 1, 'x']));
      const negative = failure(() => insert(['c', -1, 'z']));
      const missing = failure(() => insert(['d', null, 'w']));
      expect(isUniqueViolation(duplicateKey)).toBe(true);
      expect(isUniqueViolation(duplicateTag)).toBe(true);
      expect(isCheckViolation(negative)).toBe(true);
      expect(isUniqueViolation(negative)).toBe(false);
      expect((missing as { code: string }).code).toBe('SQLITE_CONSTRAINT_NOTNULL');
    });

    it(`names a locked database SQLITE_BUSY, through ${how}`, () => {
      const other = openSqliteConnection(join(dir, 'test.db'));
      try {
        other.exec('pragma busy_timeout = 0');
        other.exec('begin immediate');
        const busy = failure(() =>
          how === 'run'
            ? db.prepare("insert into t (id, n) values ('e', 1)").run([])
            : db.prepare("insert into t (id, n) values ('e', 1) returning id").all([]),
        );
        expect(isBusy(busy)).toBe(true);
      } finally {
        other.exec('rollback');
        other.close();
      }
    });
  }

  it('leaves other errors as they are', () => {
    const error = failure(() => db.prepare('select * from missing_table'));
    expect(isBusy(error)).toBe(false);
    expect(isUniqueViolation(error)).toBe(false);
    expect(String(error)).toMatch(/no such table/);
  });

  it('opens a file read-only when asked', () => {
    const reader = openSqliteConnection(join(dir, 'test.db'), { readOnly: true });
    try {
      expect(reader.prepare('select count(*) as n from t').all([])).toEqual([{ n: 0 }]);
      expect(() => reader.prepare("insert into t (id, n) values ('f', 1)").run([])).toThrow(/readonly/);
    } finally {
      reader.close();
    }
  });
});
