// The HTTP client of webhook deliveries: an undici Agent whose connector refuses non-public addresses
// at the moment of connecting, so a name that resolved to a public address when the task was created
// and to 127.0.0.1 now (DNS rebinding) is still refused. Three checks, because each covers a gap of
// the others: the resolver's answers (names), the literal IP of the URL (Node never calls `lookup`
// for one), and the socket's remote address once connected (whatever path led there).
import type { LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, buildConnector } from 'undici';
import { isPublicAddress, type ResolveHost, resolveHost } from './target-policy.js';

export const EGRESS_REFUSED = 'ERR_WEBHOOK_TARGET_REFUSED';

export class EgressRefusedError extends Error {
  readonly code = EGRESS_REFUSED;
  constructor(readonly address: string) {
    super(`target address ${address} is not allowed`);
  }
}

export interface EgressOptions {
  /** WEBHOOK_ALLOW_PRIVATE: no address checks at all (development and tests). */
  allowPrivate: boolean;
  connectTimeoutMs: number;
  resolve?: ResolveHost;
}

/** A `lookup` for net/tls.connect that answers only when every address of the name is public. */
export function guardedLookup(resolve: ResolveHost): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (addresses) => {
        const refused = addresses.find((address) => !isPublicAddress(address));
        if (refused !== undefined) return callback(new EgressRefusedError(refused), '', 0);
        const entries: LookupAddress[] = addresses
          .map((address) => ({ address, family: isIP(address) }))
          .filter((entry) => !options.family || entry.family === options.family);
        if (entries.length === 0) {
          return callback(
            Object.assign(new Error(`${hostname} has no usable address`), { code: 'ENOTFOUND' }),
            '',
            0,
          );
        }
        if (options.all) return callback(null, entries);
        callback(null, entries[0].address, entries[0].family);
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    );
  };
}

function guardedConnector(options: EgressOptions): buildConnector.connector {
  const connect = buildConnector({
    timeout: options.connectTimeoutMs,
    lookup: guardedLookup(options.resolve ?? resolveHost),
  });
  return (target, callback) => {
    const host = target.hostname.replace(/^\[|\]$/g, '');
    if (isIP(host) && !isPublicAddress(host)) return callback(new EgressRefusedError(host), null);
    connect(target, (error, socket) => {
      if (error) return callback(error, null);
      const remote = socket!.remoteAddress;
      if (!remote || !isPublicAddress(remote)) {
        socket!.destroy();
        return callback(new EgressRefusedError(remote ?? 'unknown'), null);
      }
      callback(null, socket!);
    });
  };
}

/**
 * One pooled, keep-alive Agent for all deliveries of the process. Redirects are never followed. No
 * per-origin connection cap: the sender already bounds attempts in flight, and an attempt queued
 * behind a cap would spend its timeout without being sent.
 */
export function createEgressAgent(options: EgressOptions): Agent {
  return new Agent({
    connect: options.allowPrivate ? { timeout: options.connectTimeoutMs } : guardedConnector(options),
    keepAliveTimeout: 4_000,
  });
}

export function isEgressRefused(error: unknown): error is EgressRefusedError {
  for (let e = error as { code?: unknown; cause?: unknown } | undefined; e; e = e.cause as typeof e) {
    if (e.code === EGRESS_REFUSED) return true;
  }
  return false;
}
