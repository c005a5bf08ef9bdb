// SSRF at creation time, with the allowlist OFF: the checks POST /generate runs on a webhook_url.
import { describe, expect, it } from 'vitest';
import { AppError } from '../../domain/errors.js';
import { assertWebhookTargetAllowed, isPublicAddress, type ResolveHost } from './target-policy.js';

const resolvesTo =
  (...addresses: string[]): ResolveHost =>
  async () =>
    addresses;
const unreachableDns: ResolveHost = async (host) => {
  throw new Error(`DNS must not be asked about ${host}`);
};

async function refusal(url: string, resolve?: ResolveHost, allowPrivate = false): Promise<AppError> {
  const error = await assertWebhookTargetAllowed(url, allowPrivate, resolve).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error, `${url} should be refused`).toBeInstanceOf(AppError);
  const appError = error as AppError;
  expect(appError.code).toBe('webhook_url_not_allowed');
  expect(appError.status).toBe(422);
  expect(appError.param).toBe('webhook_url');
  return appError;
}

describe('webhook target policy with WEBHOOK_ALLOW_PRIVATE=false', () => {
  it.each([
    'http://127.0.0.1/hook',
    'http://127.1.2.3:8080/hook',
    'http://[::1]/hook',
    'http://10.0.0.1/hook',
    'http://172.16.5.4/hook',
    'http://192.168.1.10/hook',
    'http://169.254.169.254/latest/meta-data/',
    'http://[::ffff:127.0.0.1]/hook',
    'http://[::ffff:10.0.0.1]/hook',
    'http://[::127.0.0.1]/hook',
    'http://[64:ff9b::7f00:1]/hook',
    'http://100.64.0.1/hook',
    'http://0.0.0.0/hook',
    'http://0.1.2.3/hook',
    'http://224.0.0.1/hook',
    'http://255.255.255.255/hook',
    'http://240.0.0.1/hook',
    'http://[ff02::1]/hook',
    'http://[fe80::1]/hook',
    'http://[fc00::1]/hook',
    'http://[::]/hook',
    'http://2130706433/hook', // 127.0.0.1 written as one number: the URL parser normalises it
    'http://0x7f.1/hook',
  ])('refuses the literal address of %s without asking DNS', async (url) => {
    await refusal(url, unreachableDns);
  });

  it('refuses a hostname that resolves to loopback (localhost, real DNS)', async () => {
    await refusal('http://localhost:8080/hook');
  });

  it('refuses a hostname that resolves to a private address, or to any private address among public ones', async () => {
    await refusal('https://intranet.example/hook', resolvesTo('10.1.2.3'));
    await refusal('https://split.example/hook', resolvesTo('93.184.216.34', '192.168.0.1'));
    await refusal('https://v6.example/hook', resolvesTo('fd00::1'));
  });

  it('refuses a hostname that does not resolve or has no address', async () => {
    await refusal('https://nowhere.invalid/hook', async () => {
      throw new Error('ENOTFOUND');
    });
    await refusal('https://empty.example/hook', resolvesTo());
  });

  it.each([
    'file:///etc/passwd',
    'ftp://93.184.216.34/hook',
    'gopher://93.184.216.34/',
    'javascript:alert(1)',
    'not a url',
    '/relative/hook',
  ])('refuses %s: not an absolute http(s) URL', async (url) => {
    await refusal(url, unreachableDns);
  });

  it('refuses credentials in the URL', async () => {
    await refusal('https://user:pass@93.184.216.34/hook', unreachableDns);
  });

  it('accepts public http and https targets', async () => {
    await expect(
      assertWebhookTargetAllowed('https://93.184.216.34/hook', false, unreachableDns),
    ).resolves.toBeUndefined();
    await expect(
      assertWebhookTargetAllowed('http://[2606:4700::1111]:8443/h', false, unreachableDns),
    ).resolves.toBeUndefined();
    await expect(
      assertWebhookTargetAllowed(
        'https://hooks.example.com/x',
        false,
        resolvesTo('93.184.216.34', '2606:4700::1111'),
      ),
    ).resolves.toBeUndefined();
  });
});

describe('webhook target policy with WEBHOOK_ALLOW_PRIVATE=true', () => {
  it('accepts loopback and private targets without asking DNS, but still only http(s)', async () => {
    await expect(
      assertWebhookTargetAllowed('http://127.0.0.1:3000/hook', true, unreachableDns),
    ).resolves.toBeUndefined();
    await expect(
      assertWebhookTargetAllowed('http://localhost:3000/hook', true, unreachableDns),
    ).resolves.toBeUndefined();
    await refusal('file:///etc/passwd', unreachableDns, true);
    await refusal('ftp://127.0.0.1/hook', unreachableDns, true);
  });
});

describe('isPublicAddress', () => {
  it('accepts only global unicast', () => {
    expect(
      ['8.8.8.8', '93.184.216.34', '2606:4700::1111', '::ffff:8.8.8.8', '[2001:4860::8888]'].every(
        isPublicAddress,
      ),
    ).toBe(true);
    expect(
      [
        '127.0.0.1',
        '::1',
        '::ffff:127.0.0.1',
        '100.64.0.1',
        '2001:db8::1',
        '2002:7f00:1::',
        'nonsense',
        '',
      ].some(isPublicAddress),
    ).toBe(false);
  });
});
