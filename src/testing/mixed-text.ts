// Mixed text for measuring how a cut stream is counted (bench/cut-stream-count.ts) and for the
// upstream fakes of the cut-stream tests: English prose, Russian prose, TypeScript and JSON, the
// kinds of output a chat model streams. Written for this purpose; fixed, so figures are repeatable.

export const ENGLISH = `A gateway that sells model calls by the token has to know, for every request, what the
upstream will charge for it. Most of the time the upstream says so itself: the last event of a stream
carries a usage object with the prompt and completion tokens, and the gateway prices exactly that.
The hard case is the stream that ends early. A user closes the tab, a mobile network drops, a
script times out after thirty seconds. The upstream has already generated part of the answer and
will bill for it, yet the usage event never arrives. Counting one token per chunk looks reasonable
until you notice that many providers send a whole word, or several words, in one chunk. Anthropic's
text deltas routinely carry three to eight tokens; some compatible proxies buffer a line at a time.
An answer of a thousand words then costs the customer a few hundred tokens instead of thirteen
hundred, and the operator pays the difference. Re-tokenizing the delivered text with the model's own
encoding closes that gap for OpenAI models almost exactly, because the text the model streamed is the
decoding of the tokens it produced. For models whose tokenizer is not published, an upper bound is
the honest choice: never charge less than the upstream did, and say by how much it may charge more.
Numbers such as 3.14159, dates like 2026-11-29, URLs like https://example.com/a/b?c=d&e=f and
identifiers such as sk_live_abcd1234 tokenize differently from prose, so they belong in the sample.`;

export const RUSSIAN = `Шлюз, который продаёт вызовы моделей по токенам, должен для каждого запроса знать, сколько за
него возьмёт провайдер. Чаще всего провайдер сообщает это сам: последнее событие потока несёт
объект usage с числом токенов запроса и ответа, и шлюз берёт ровно эту сумму. Трудный случай —
поток, который обрывается раньше времени. Пользователь закрывает вкладку, мобильная сеть пропадает,
скрипт прерывается по таймауту через тридцать секунд. Провайдер уже сгенерировал часть ответа и
выставит за неё счёт, а события с расходом так и не будет. Считать по одному токену на фрагмент
кажется разумным, пока не заметишь, что многие провайдеры присылают в одном фрагменте целое слово
или несколько слов. Русский текст к тому же разбивается на токены мельче английского: одно слово
часто занимает два-три токена, а в старых кодировках и больше. Поэтому ответ из тысячи слов при
подсчёте по фрагментам обходится клиенту в несколько сотен токенов вместо двух-трёх тысяч, а разницу
оплачивает владелец шлюза. Повторная токенизация доставленного текста кодировкой самой модели
закрывает этот разрыв почти полностью. Для моделей с закрытым токенизатором честнее верхняя оценка:
никогда не брать меньше, чем взял провайдер, и прямо сказать, насколько больше можно взять. Числа
вроде 1 234 567,89 ₽, даты 29.11.2026 и ёлочки «кавычек» тоже входят в выборку.`;

export const CODE = `import { createHash } from 'node:crypto';

export interface LedgerEntry {
  id: number;
  keyId: number;
  kind: 'topup' | 'hold' | 'capture' | 'release' | 'adjust';
  amount: number;
  balanceAfter: number;
  createdAt: number;
}

/** Sums the entries of one key and checks the running balance after each of them. */
export function checkRunningBalance(entries: readonly LedgerEntry[]): string[] {
  const problems: string[] = [];
  let balance = 0;
  for (const entry of [...entries].sort((a, b) => a.id - b.id)) {
    balance += entry.kind === 'hold' || entry.kind === 'capture' ? -Math.abs(entry.amount) : entry.amount;
    if (balance !== entry.balanceAfter) {
      problems.push(\`entry \${entry.id}: balance \${balance} != \${entry.balanceAfter}\`);
      balance = entry.balanceAfter;
    }
    if (balance < 0) problems.push(\`entry \${entry.id}: negative balance \${balance}\`);
  }
  return problems;
}

export function fingerprint(method: string, route: string, body: Uint8Array): string {
  return createHash('sha256').update(method).update('\\0').update(route).update('\\0').update(body).digest('hex');
}

async function* paced<T>(items: Iterable<T>, ms: number): AsyncGenerator<T> {
  for (const item of items) {
    await new Promise((resolve) => setTimeout(resolve, ms));
    yield item;
  }
}

def settle(hold: int, usage: dict[str, int], prices: tuple[int, int]) -> int:
    cost = -(-(usage["prompt_tokens"] * prices[0] + usage["completion_tokens"] * prices[1]) // 10**6)
    return min(cost, hold)
`;

/** A JSON document as a model would emit it for a structured-output request. */
export const JSON_TEXT = JSON.stringify(
  {
    invoice: {
      id: 'inv_01JDQ8Z6M4T2R9',
      currency: 'RUB',
      lines: Array.from({ length: 12 }, (_, i) => ({
        model: ['gpt-4o', 'claude-sonnet-4-5', 'gpt-image-1:high-1536x1024', 'veo-3-fast:audio'][i % 4],
        prompt_tokens: 1_000 + i * 137,
        completion_tokens: 250 + i * 61,
        cost_micro: 4_500_000 + i * 1_234_567,
        created_at: `2026-11-${String(10 + i).padStart(2, '0')}T0${i % 10}:15:00Z`,
        tags: ['batch', i % 2 ? 'stream' : 'sync', i % 3 ? 'ok' : 'cut'],
      })),
      totals: { lines: 12, cost_micro: 135_456_789, paid: false },
    },
    customer: { name: 'ООО «Пример»', email: 'billing@example.ru', vat_id: '7701234567' },
  },
  null,
  2,
);

export const SAMPLES: Record<string, string> = {
  english: ENGLISH,
  russian: RUSSIAN,
  code: CODE,
  json: JSON_TEXT,
};

/** All four kinds in one answer, as a model mixing prose, code and data would stream it. */
export const MIXED = `${ENGLISH}\n\n${RUSSIAN}\n\n\`\`\`ts\n${CODE}\`\`\`\n\n\`\`\`json\n${JSON_TEXT}\n\`\`\`\n`;
