// One HTTP request to the API with retries. Only idempotent calls are retried (GETs, and POST
// /generate, which always carries an Idempotency-Key and the same bytes on every attempt), on a
// dropped connection, 429, 5xx and 409 idempotency_in_progress, with exponential backoff and jitter
// or the server's Retry-After.
import { ApiError, apiErrorOf, ConnectionError, retryAfterSeconds } from './errors.js';
import { combineSignals, sleep } from './time.js';

export interface TransportOptions {
  apiKey: string | undefined;
  baseUrl: string;
  fetch: typeof fetch;
  /** Retries after the first attempt, for idempotent calls. */
  maxRetries: number;
  /** Time limit of one attempt, in ms. */
  timeoutMs: number;
  /** Longest Retry-After a call waits for before retrying; a longer one is thrown to the caller. */
  maxRetryAfterMs: number;
  headers: Record<string, string>;
}

export interface RequestOptions {
  query?: Record<string, string | number | undefined>;
  /** The exact body bytes: sent unchanged on every attempt (the idempotency fingerprint is the bytes). */
  body?: string;
  headers?: Record<string, string>;
  idempotent: boolean;
  signal?: AbortSignal;
  maxRetries?: number;
  /** Send the API key (false for public reads of result files). */
  auth?: boolean;
}

const BACKOFF_BASE_MS = 500;
const BACKOFF_MAX_MS = 8_000;

/** Exponential backoff with equal jitter: half fixed, half random, so clients spread out. */
export function backoffMs(attempt: number): number {
  const ceiling = Math.min(BACKOFF_MAX_MS, BACKOFF_BASE_MS * 2 ** attempt);
  return ceiling / 2 + Math.random() * (ceiling / 2);
}

export class Transport {
  constructor(private readonly options: TransportOptions) {}

  url(path: string, query?: RequestOptions['query']): string {
    const url = new URL(path.replace(/^\//, ''), `${this.options.baseUrl.replace(/\/+$/, '')}/`);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    return url.toString();
  }

  async json<T>(method: string, path: string, request: RequestOptions): Promise<T> {
    // The body is read inside the attempt: a connection cut mid-body is retried like any other.
    const text = await this.send(method, this.url(path, request.query), request, (response) =>
      response.text(),
    );
    return (text.length > 0 ? JSON.parse(text) : undefined) as T;
  }

  /**
   * Sends with retries until a 2xx answer, hands it to `read` (still under the attempt's time
   * limit) and answers what `read` does; a non-2xx answer becomes a typed error.
   */
  async send<T>(
    method: string,
    url: string,
    request: RequestOptions,
    read: (response: Response) => Promise<T>,
  ): Promise<T> {
    const maxRetries = request.idempotent ? (request.maxRetries ?? this.options.maxRetries) : 0;
    const headers: Record<string, string> = {
      accept: 'application/json',
      ...this.options.headers,
      ...(request.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...request.headers,
    };
    if (request.auth !== false && this.options.apiKey)
      headers.authorization = `Bearer ${this.options.apiKey}`;
    for (let attempt = 0; ; attempt++) {
      let failure: ApiError | ConnectionError;
      let retryAfterMs: number | undefined;
      const timeout = new AbortController();
      const timer = setTimeout(() => timeout.abort(), this.options.timeoutMs);
      try {
        // Called unbound: browsers refuse a fetch invoked as a method of another object.
        const fetchImpl = this.options.fetch;
        const response = await fetchImpl(url, {
          method,
          headers,
          body: request.body,
          signal: combineSignals(request.signal, timeout.signal),
        });
        if (response.ok) return await read(response);
        const apiError = apiErrorOf(response.status, await readBody(response), response.headers);
        if (!isRetryableStatus(apiError)) throw apiError;
        failure = apiError;
        const retryAfter = retryAfterSeconds(response.headers);
        retryAfterMs = retryAfter === undefined ? undefined : retryAfter * 1000;
      } catch (error) {
        if (request.signal?.aborted) throw request.signal.reason;
        if (error instanceof ApiError) throw error;
        failure = timeout.signal.aborted
          ? new ConnectionError(`${method} ${url}: no answer within ${this.options.timeoutMs} ms`, {
              cause: error,
            })
          : new ConnectionError(`${method} ${url}: ${describe(error)}`, { cause: error });
      } finally {
        clearTimeout(timer);
      }
      if (attempt >= maxRetries) throw failure;
      if (retryAfterMs !== undefined && retryAfterMs > this.options.maxRetryAfterMs) throw failure;
      await sleep(retryAfterMs ?? backoffMs(attempt), request.signal);
    }
  }
}

function isRetryableStatus(error: ApiError): boolean {
  return (
    error.status === 429 ||
    error.status >= 500 ||
    (error.status === 409 && error.code === 'idempotency_in_progress')
  );
}

async function readBody(response: Response): Promise<unknown> {
  const text = await response.text().catch(() => '');
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function describe(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause instanceof Error ? ` (${error.cause.message})` : '';
  return `${error.message}${cause}`;
}
