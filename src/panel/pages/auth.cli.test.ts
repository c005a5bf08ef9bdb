// `gengate login-link MESSAGING_ID`, run as an operator runs it: prints a one-time sign-in URL.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { DatabaseSync } from '@photostructure/sqlite';
import { afterAll, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../../..');
const dir = mkdtempSync(join(tmpdir(), 'gengate-login-link-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function gengate(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = {
    PATH: process.env.PATH ?? '',
    HOME: dir,
    DATA_DIR: dir,
    NODE_ENV: 'test',
    PUBLIC_URL: 'https://gw.example.com',
  };
  return new Promise((done) => {
    execFile(
      process.execPath,
      ['bin/gengate.mjs', ...args],
      { cwd: ROOT, env, timeout: 90_000 },
      (error, stdout, stderr) => {
        done({ code: error ? (typeof error.code === 'number' ? error.code : -1) : 0, stdout, stderr });
      },
    );
  });
}

describe('gengate login-link', () => {
  it('prints a one-time link for an existing account, audited; refuses an unknown one', async () => {
    expect((await gengate('account', 'create', '--messaging-id', '4242')).code).toBe(0);
    const run = await gengate('login-link', '4242');
    expect(run.code, run.stderr).toBe(0);
    const match = /^https:\/\/gw\.example\.com\/panel\/login\?token=([A-Za-z0-9_-]{43})\n$/.exec(run.stdout);
    expect(match, run.stdout).not.toBeNull();
    expect(run.stderr).toMatch(/valid until \d{4}-\d{2}-\d{2}T/);

    const db = new DatabaseSync(join(dir, 'gengate.db'), { readOnly: true });
    try {
      const hash = createHash('sha256')
        .update(match?.[1] ?? '')
        .digest('hex');
      const row = db.prepare('select kind, used_at from panel_tokens where token_hash = ?').get(hash) as
        | { kind: string; used_at: number | null }
        | undefined;
      expect(row).toEqual({ kind: 'login_link', used_at: null });
      const audit = db.prepare("select actor from audit_log where action = 'login_link.created'").all();
      expect(audit).toEqual([{ actor: 'cli' }]);
    } finally {
      db.close();
    }

    const unknown = await gengate('login-link', '999');
    expect(unknown.code).toBe(1);
    expect(unknown.stdout).toBe('');
    expect(unknown.stderr).toMatch(/error: /);
  }, 240_000);
});
