// One small JSON request helper for the bench's own calls (setup, preflight, polling). The load
// itself never goes through here.
export interface HttpAnswer {
  status: number;
  text: string;
  json: any;
}

export async function call(
  origin: string,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: unknown; timeoutMs?: number } = {},
): Promise<HttpAnswer> {
  const response = await fetch(`${origin}${path}`, {
    method,
    headers: {
      ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
      ...options.headers,
    },
    body:
      options.body === undefined
        ? undefined
        : typeof options.body === 'string'
          ? options.body
          : JSON.stringify(options.body),
    signal: AbortSignal.timeout(options.timeoutMs ?? 30_000),
  });
  const text = await response.text();
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    // Not JSON; the caller reads `text`.
  }
  return { status: response.status, text, json };
}

/** An unregistered route answers 404 with "No route for …" (src/http/errors.ts), unlike a 404 of a route that exists. */
export function isMissingRoute(answer: HttpAnswer): boolean {
  return (
    answer.status === 404 &&
    typeof answer.json?.error?.message === 'string' &&
    answer.json.error.message.startsWith('No route for')
  );
}

export function brief(answer: HttpAnswer): string {
  return `HTTP ${answer.status} ${answer.text.slice(0, 300)}`;
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
