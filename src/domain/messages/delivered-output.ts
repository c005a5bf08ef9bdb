// The output text of a Messages stream's content_block_delta events, for billing a stream that was
// cut before the upstream's final usage: text, thinking and tool input (partial_json) deltas, each
// content block's pieces joined in order. Signature deltas are not output the model wrote, and
// count nothing. The pass-through keeps the delta events as relayed and reads them only here, when
// a stream was cut: a stream that completes never parses them.
import { eventData } from './sse-events.js';

/** One text per content block, in block order; blocks with no text are left out. */
export function deliveredTexts(deltaEvents: readonly string[]): string[] {
  const blocks = new Map<number, string[]>();
  for (const event of deltaEvents) {
    const data = eventData(event);
    const delta = data?.delta as Record<string, unknown> | undefined;
    if (!delta || typeof delta !== 'object') continue;
    const piece =
      delta.type === 'text_delta'
        ? delta.text
        : delta.type === 'thinking_delta'
          ? delta.thinking
          : delta.type === 'input_json_delta'
            ? delta.partial_json
            : undefined;
    if (typeof piece !== 'string' || piece.length === 0) continue;
    const index = Number.isSafeInteger(data?.index) ? (data?.index as number) : 0;
    const pieces = blocks.get(index);
    if (pieces) pieces.push(piece);
    else blocks.set(index, [piece]);
  }
  return [...blocks.entries()].sort(([a], [b]) => a - b).map(([, pieces]) => pieces.join(''));
}
