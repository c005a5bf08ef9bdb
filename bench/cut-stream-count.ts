// How a cut stream's output is counted, against the upstream's own count. Run:
//   node bin/run-ts.mjs bench/cut-stream-count.ts
// An OpenAI upstream streams the decoding of the tokens it generates; its completion_tokens is how
// many there were. Each text below is encoded with o200k (the tokens "generated"), grouped into
// chunks of K tokens (never splitting a character, as upstreams do not), and cut after 10 %, 25 %,
// 50 %, 75 % and 100 % of its chunks. For each cut we compare with the tokens actually delivered:
//   tokenizer: the delivered text re-encoded with o200k (what gengate bills a cut stream with);
//   per chunk: one token per delivered chunk (what it billed before);
//   bound:     the upper bound used for Claude and unknown families (token-count.ts).
// The texts: the fixed mixed sample of src/testing/mixed-text.ts, plus this repository's docs
// (English), domain code (TypeScript) and default catalog (JSON), for volume.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens as cl100kCount } from 'gpt-tokenizer/encoding/cl100k_base';
import { decode, encode, countTokens as o200kCount } from 'gpt-tokenizer/encoding/o200k_base';
import { countTokens as boundCount } from '../src/domain/chat/token-count.js';
import { SAMPLES } from '../src/testing/mixed-text.js';

const PLAIN = { disallowedSpecial: new Set<string>() };
const root = new URL('..', import.meta.url).pathname;

function repoTexts(): Record<string, string> {
  const read = (dir: string, ext: string, limit: number) =>
    readdirSync(join(root, dir))
      .filter((name) => name.endsWith(ext) && !name.includes('.test.'))
      .sort()
      .slice(0, limit)
      .map((name) => readFileSync(join(root, dir, name), 'utf8'))
      .join('\n');
  return {
    'docs (en)': read('docs', '.md', 4),
    'code (ts)': read('src/domain/chat', '.ts', 20),
    'catalog (json)': readFileSync(join(root, 'src/domain/catalog/default-models.json'), 'utf8').slice(
      0,
      20_000,
    ),
  };
}

/** The text of each chunk of `size` tokens, a chunk growing until it ends on a whole character. */
function chunksOf(tokens: number[], size: number): { text: string; tokens: number }[] {
  const chunks: { text: string; tokens: number }[] = [];
  let start = 0;
  while (start < tokens.length) {
    let end = Math.min(start + size, tokens.length);
    let text = decode(tokens.slice(start, end));
    while (text.endsWith('\uFFFD') && end < tokens.length) text = decode(tokens.slice(start, ++end));
    chunks.push({ text, tokens: end - start });
    start = end;
  }
  return chunks;
}

interface Totals {
  truth: number;
  tokenizer: number;
  perChunk: number;
  bound: number;
  worstTokenizer: number;
  worstBoundBelow: number;
}

const CUTS = [0.1, 0.25, 0.5, 0.75, 1];
const SIZES = [1, 2, 3, 5, 8];

async function measure(text: string): Promise<Totals> {
  const tokens = encode(text, PLAIN);
  const totals: Totals = {
    truth: 0,
    tokenizer: 0,
    perChunk: 0,
    bound: 0,
    worstTokenizer: 0,
    worstBoundBelow: 0,
  };
  for (const size of SIZES) {
    const chunks = chunksOf(tokens, size);
    for (const cut of CUTS) {
      const delivered = chunks.slice(0, Math.max(1, Math.round(chunks.length * cut)));
      const truth = delivered.reduce((sum, chunk) => sum + chunk.tokens, 0);
      const joined = delivered.map((chunk) => chunk.text).join('');
      const counted = o200kCount(joined, PLAIN);
      const bound = await boundCount('bound', [joined]);
      totals.truth += truth;
      totals.tokenizer += counted;
      totals.perChunk += delivered.length;
      totals.bound += bound;
      totals.worstTokenizer = Math.max(totals.worstTokenizer, Math.abs(counted - truth) / truth);
      if (bound < truth) totals.worstBoundBelow = Math.max(totals.worstBoundBelow, (truth - bound) / truth);
    }
  }
  return totals;
}

const pct = (value: number) => `${(value * 100).toFixed(2)} %`;
const texts = { ...SAMPLES, ...repoTexts() };
console.log(`cuts at ${CUTS.map(pct).join(', ')} of the chunks; chunks of ${SIZES.join(', ')} tokens\n`);
console.log(
  [
    'text',
    'o200k tokens',
    'cl100k/o200k',
    'tokenizer err (sum)',
    'tokenizer err (worst cut)',
    'per-chunk (sum)',
    'bound/truth',
    'bound below truth',
  ].join(' | '),
);
const all: Totals = { truth: 0, tokenizer: 0, perChunk: 0, bound: 0, worstTokenizer: 0, worstBoundBelow: 0 };
for (const [name, text] of Object.entries(texts)) {
  const t = await measure(text);
  for (const key of ['truth', 'tokenizer', 'perChunk', 'bound'] as const) all[key] += t[key];
  all.worstTokenizer = Math.max(all.worstTokenizer, t.worstTokenizer);
  all.worstBoundBelow = Math.max(all.worstBoundBelow, t.worstBoundBelow);
  const o200k = o200kCount(text, PLAIN);
  console.log(
    [
      name,
      o200k,
      (cl100kCount(text, PLAIN) / o200k).toFixed(3),
      pct((t.tokenizer - t.truth) / t.truth),
      pct(t.worstTokenizer),
      pct((t.perChunk - t.truth) / t.truth),
      (t.bound / t.truth).toFixed(3),
      t.worstBoundBelow > 0 ? pct(t.worstBoundBelow) : 'never',
    ].join(' | '),
  );
}
console.log(
  `\nall: ${all.truth} delivered tokens over ${Object.keys(texts).length} texts × ${SIZES.length} chunk sizes × ${CUTS.length} cuts; ` +
    `tokenizer ${pct((all.tokenizer - all.truth) / all.truth)} (${all.tokenizer - all.truth} tokens; worst single cut ${pct(all.worstTokenizer)}); ` +
    `one token per chunk ${pct((all.perChunk - all.truth) / all.truth)}; ` +
    `bound ${(all.bound / all.truth).toFixed(3)}× the o200k truth`,
);
