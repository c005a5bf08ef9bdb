// Prompt directives that script the simulator (DESIGN.md section 5), e.g. "a cat [sim:delay=500]"
// or "[sim:busy=2,tokens=1000]". Unknown or malformed directives are ignored.

export type SimFailure = 'reject' | 'billing' | 'overload' | 'params' | 'timeout';
const FAILURES: readonly SimFailure[] = ['reject', 'billing', 'overload', 'params', 'timeout'];

export interface SimDirectives {
  delayMs?: number;
  fail?: SimFailure;
  busy?: number;
  tokens?: number;
}

const BLOCK = /\[sim:([^\]]*)\]/gi;
const MAX_INT = 2 ** 31;

function count(value: string): number | undefined {
  if (!/^\d{1,10}$/.test(value)) return undefined;
  const n = Number(value);
  return n < MAX_INT ? n : undefined;
}

export function parseDirectives(text: string | undefined): SimDirectives {
  const directives: SimDirectives = {};
  if (!text) return directives;
  for (const [, body] of text.matchAll(BLOCK)) {
    for (const part of body.split(/[,;\s]+/)) {
      const [name, value = ''] = part.split('=', 2).map((s) => s.trim().toLowerCase());
      if (name === 'delay') directives.delayMs = count(value) ?? directives.delayMs;
      else if (name === 'busy') directives.busy = count(value) ?? directives.busy;
      else if (name === 'tokens') directives.tokens = count(value) ?? directives.tokens;
      else if (name === 'fail' && FAILURES.includes(value as SimFailure))
        directives.fail = value as SimFailure;
    }
  }
  return directives;
}

/** The prompt as the "model" sees it: directives removed, so the rendered text stays readable. */
export function stripDirectives(text: string | undefined): string {
  return (text ?? '').replace(BLOCK, ' ').replace(/\s+/g, ' ').trim();
}
