// `gengate console-link`, run as an operator runs it: prints a one-time console sign-in URL, stored
// only as a hash and audited; without ADMIN_TOKEN the console is off and the command says so.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const dir = mkdtempSync(join(tmpdir(), 'gengate-console-link-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function gengate(env: Record<string, string>, ...args: string[]) {
  return new Promise<{ code: number; stdout: string; stderr: string }>((done) => {
    execFile(
      process.execPath,
      ['bin/gengate.mjs', ...args],
      {
        cwd: ROOT,
        env: {
          PATH: process.env.PATH ?? '',
          HOME: dir,
          DATA_DIR: dir,
          NODE_ENV: 'test',
          PUBLIC_URL: 'https://gw.example.com',
          ...env,
        },
        timeout: 90_000,
      },
      (error, stdout, stderr) =>
        done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr }),
    );
  });
}

describe('gengate console-link', () => {
  it('prints a one-time link with ADMIN_TOKEN (hashed, audited) and refuses without it', async () => {
    const off = await gengate({}, 'console-link');
    expect(off.code).toBe(1);
    expect(off.stdout).toBe('');
    expect(off.stderr).toMatch(/console is off: set ADMIN_TOKEN/);

    const run = await gengate({ ADMIN_TOKEN: 'cli-admin-token-0123456789' }, 'console-link');
    expect(run.code, run.stderr).toBe(0);
    const match = /^https:\/\/gw\.example\.com\/console\/login\?token=([A-Za-z0-9_-]{43})\n$/.exec(
      run.stdout,
    );
    expect(match, run.stdout).not.toBeNull();
    expect(run.stderr).toMatch(/valid until \d{4}-\d{2}-\d{2}T/);
    const db = new DatabaseSync(join(dir, 'gengate.db'), { readOnly: true });
    try {
      const hash = createHash('sha256').update(`gengate-console\0${match?.[1]}`).digest('hex');
      expect(db.prepare('select kind, used_at from console_tokens where token_hash = ?').get(hash)).toEqual({
        kind: 'link',
        used_at: null,
      });
      expect(
        db.prepare("select actor from operator_audit where action = 'console.link_created'").all(),
      ).toEqual([{ actor: 'cli' }]);
    } finally {
      db.close();
    }
  }, 240_000);
});
