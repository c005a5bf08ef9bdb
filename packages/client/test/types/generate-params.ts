// Compiled by types.test.ts (never run): generate()'s parameters are checked per model. Every
// `@ts-expect-error` line must be an error, or the compiler reports the directive as unused.
import { type CompletedTask, type GenerateParams, Gengate, type WebhookEvent } from '../../src/index.js';

const gengate = new Gengate({ apiKey: 'sk_live_x' });

export async function wellTyped(): Promise<string | undefined> {
  await gengate.generate({ model_name: 'seedance-2', prompt: 'a cat', duration: 5, aspect_ratio: '16:9' });
  await gengate.generate({ model_name: 'flux-1-1-pro', prompt: 'a fox', aspect_ratio: '3:2' });
  const params: GenerateParams = { model_name: 'kling-2-1', prompt: 'a lighthouse', duration: 10 };
  const { task_id } = await gengate.generate(params, { idempotencyKey: 'order-1' });
  const task: CompletedTask = await gengate.run({
    model_name: 'seedance-2',
    prompt: 'x',
    webhook_url: 'https://a.b/h',
  });
  const event = {} as WebhookEvent;
  if (event.status === 'failed') return event.error;
  // Completed: the result is there, no null check needed.
  return event.result.video_url ?? task.result.video_url ?? task_id;
}

export async function wronglyTyped(): Promise<void> {
  // @ts-expect-error: seedance-2's duration is an integer of seconds, not a string
  await gengate.generate({ model_name: 'seedance-2', prompt: 'a cat', duration: '5' });
  // @ts-expect-error: seedance-2 has no `resolution` parameter
  await gengate.generate({ model_name: 'seedance-2', prompt: 'a cat', resolution: '1080p' });
  // @ts-expect-error: 2:1 is not one of seedance-2's aspect ratios
  await gengate.generate({ model_name: 'seedance-2', prompt: 'a cat', aspect_ratio: '2:1' });
  // @ts-expect-error: flux-1-1-pro needs a prompt
  await gengate.generate({ model_name: 'flux-1-1-pro' });
  // @ts-expect-error: not a model of the catalog
  await gengate.generate({ model_name: 'no-such-model', prompt: 'x' });
  // @ts-expect-error: the parameters, not the request body: no `params` wrapper
  await gengate.generate({ params: { model_name: 'seedance-2', prompt: 'x' } });
  const event = {} as WebhookEvent;
  // @ts-expect-error: a completed event has no error (narrowed by status)
  if (event.status === 'completed') event.error;
  // @ts-expect-error: a failed event has no result
  if (event.status === 'failed') event.result;
}
