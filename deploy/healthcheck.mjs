#!/usr/bin/env node
// The container's HEALTHCHECK: GET /healthz on the API port (PORT), or, for a process that serves no
// API (the worker role), on its METRICS_PORT listener. Exits 0 when healthy, 1 otherwise. Only a
// refused connection moves on to the next port: an API that answers badly or hangs is unhealthy.
const ports = [process.env.PORT || '8080', process.env.METRICS_PORT].filter(Boolean);

for (const port of ports) {
  try {
    const answer = await fetch(`http://127.0.0.1:${port}/healthz`, { signal: AbortSignal.timeout(2_500) });
    process.exit(answer.ok ? 0 : 1);
  } catch (error) {
    if (error?.cause?.code !== 'ECONNREFUSED') process.exit(1);
  }
}
process.exit(1);
