// SSRF at POST /generate with WEBHOOK_ALLOW_PRIVATE=false: every refused webhook_url answers 422
// webhook_url_not_allowed and writes nothing: no task, no hold, no ledger entry.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestKey } from '../../../testing/app.js';
import {
  balanceOf,
  countRows,
  createTaskTestApp,
  expectLedgerClean,
  generate,
  type TaskTestApp,
} from '../../../testing/tasks.js';

let app: TaskTestApp;
let key: TestKey;

beforeAll(async () => {
  app = await createTaskTestApp({ runner: false, config: { webhookAllowPrivate: false } });
  key = await app.newKey({ balanceRub: 1000 });
});

afterAll(async () => {
  await expectLedgerClean(app);
  await app.dispose();
});

describe('POST /generate refuses webhook targets that are not public http(s)', () => {
  it.each([
    'http://127.0.0.1/hook',
    'http://[::1]/hook',
    'http://10.0.0.1/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:127.0.0.1]/hook',
    'http://localhost:8080/hook',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
    'http://224.0.0.1/hook',
    'http://[fd00::1]/hook',
    'file:///etc/passwd',
    'ftp://93.184.216.34/hook',
  ])('%s → 422 webhook_url_not_allowed, nothing written', async (webhookUrl) => {
    const before = await countRows(app);
    const balance = await balanceOf(app, key);
    const res = await generate(app, key, {
      model_name: 'seedance-2',
      prompt: 'a lighthouse',
      webhook_url: webhookUrl,
    });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toEqual({
      error: {
        message: expect.any(String),
        type: 'invalid_request_error',
        code: 'webhook_url_not_allowed',
        param: 'webhook_url',
      },
    });
    expect(await countRows(app)).toEqual(before);
    expect(await balanceOf(app, key)).toEqual(balance);
  });

  it('accepts a public target (the control case): 202, a task and its hold', async () => {
    const before = await countRows(app);
    const res = await generate(app, key, {
      model_name: 'seedance-2',
      prompt: 'a lighthouse',
      webhook_url: 'https://93.184.216.34/hook',
    });
    expect(res.statusCode).toBe(202);
    const after = await countRows(app);
    expect(after.tasks).toBe(before.tasks + 1);
    expect(after.ledger).toBe(before.ledger + 1);
  });
});
