// The background checkpointer copies WAL pages into the database file on its own thread, so the
// writer's commits never have to (its own automatic checkpoint is pushed far out as a backstop).
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'kysely';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqlite } from './db.js';

const dir = mkdtempSync(join(tmpdir(), 'gengate-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

async function fill(file: string, backgroundCheckpoint: boolean): Promise<{ before: number; after: number }> {
  const db = openSqlite(file, { backgroundCheckpoint });
  try {
    await sql`create table t (id integer primary key, body text)`.execute(db.kysely);
    const before = statSync(file).size;
    // About 0.8 MB in 200 commits: ~400 WAL pages, under SQLite's default threshold of 1,000.
    for (let i = 0; i < 200; i++)
      await sql`insert into t (body) values (${'x'.repeat(4000)})`.execute(db.kysely);
    // Wait for the whole WAL to be copied, not its first pages: on a loaded machine the
    // checkpointer's thread may be part-way through when the file first grows.
    const deadline = Date.now() + 10_000;
    while (backgroundCheckpoint && statSync(file).size <= before + 400_000 && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    return { before, after: statSync(file).size };
  } finally {
    await db.close();
  }
}

describe('background WAL checkpoints', () => {
  it('move committed pages into the database file without the writer checkpointing', async () => {
    const background = await fill(join(dir, 'background.db'), true);
    expect(background.after).toBeGreaterThan(background.before + 400_000);
  });

  it('are off unless asked for: the writer alone leaves the pages in the WAL below its threshold', async () => {
    const plain = await fill(join(dir, 'plain.db'), false);
    expect(plain.after).toBe(plain.before);
  });
});
