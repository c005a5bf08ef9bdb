// Every provider-side lookup by a name that comes from a client's params or an upstream's answer
// (aspect ratios, output formats, file extensions, error params, content types) treats the names
// every object inherits (`__proto__`, `constructor`, `toString`…) as unknown, never as a match.
import { describe, expect, it } from 'vitest';
import { INHERITED_NAMES } from '../domain/own-entry.js';
import { contentTypeOfName, newObjectName, normalizeContentType } from '../objects/object-store.js';
import { buildImageBody } from './ark/request.js';
import { buildFalRequest } from './fal/request.js';
import { imageContentType } from './openai/media-adapter.js';
import { submitError } from './openai/media-errors.js';
import { imageRequest, isRefusal, videoRequest } from './openai/media-request.js';
import { outputsOf } from './replicate/prediction.js';
import { mappingFor } from './replicate/request.js';
import { parseDirectives, scriptReply } from './simulator/chat-script.js';
import type { ProviderTask } from './task-provider.js';

const task = (params: Record<string, unknown>, modelId = 'gpt-image-1', kind: 'image' | 'video' = 'image') =>
  ({ id: 'task_1', modelId, upstreamModel: modelId, kind, params, requeues: 0 }) as ProviderTask;

describe.each(INHERITED_NAMES)('the inherited name %s', (name) => {
  it('is not an aspect ratio of OpenAI images or videos: a params refusal', () => {
    const image = imageRequest(task({ prompt: 'a cat', aspect_ratio: name }));
    expect(isRefusal(image) && image.failure).toMatchObject({
      kind: 'params',
      message: 'invalid aspect_ratio',
    });
    const video = videoRequest(task({ prompt: 'a cat', aspect_ratio: name }, 'sora-2', 'video'));
    expect(isRefusal(video) && video.failure).toMatchObject({ kind: 'params' });
  });

  it('is not a Seedream size on Ark: a params refusal', () => {
    const built = buildImageBody(task({ prompt: 'a cat', aspect_ratio: name }, 'seedream-4'));
    expect(built).toMatchObject({ failure: { kind: 'params', message: 'invalid aspect_ratio' } });
  });

  it('is not a fal image size, nor a fal model family', () => {
    const sized = buildFalRequest({
      modelId: 'flux-1-1-pro',
      upstreamModel: 'flux-1-1-pro',
      params: { prompt: 'x', aspect_ratio: name },
    });
    expect(sized).toHaveProperty('error');
    const unknownFamily = buildFalRequest({
      modelId: name,
      upstreamModel: 'fal-ai/some/model',
      params: { prompt: 'x' },
    });
    expect(unknownFamily).toEqual({ path: 'fal-ai/some/model', input: { prompt: 'x' } });
  });

  it('is not a Replicate model family, nor a known file extension of its output', () => {
    expect(mappingFor(name)).toEqual(mappingFor('owner/unknown-model'));
    const [output] = outputsOf({
      id: 'p1',
      status: 'succeeded',
      output: `https://replicate.delivery/x/out.${name}`,
    } as never);
    expect(output.contentType).toBeUndefined();
  });

  it('is not an OpenAI image output format: PNG', () => {
    expect(imageContentType(name)).toBe('image/png');
    expect(imageContentType('webp')).toBe('image/webp');
  });

  it('as the param an OpenAI error names, is not turned into one of ours', () => {
    const answer = { status: 400, headers: {}, text: '', json: { error: { param: name, message: 'bad' } } };
    const outcome = submitError(answer);
    expect(outcome).toMatchObject({ status: 'failed', failure: { kind: 'params' } });
    expect(outcome.status === 'failed' && outcome.failure.message).toBeFalsy();
  });

  it('as a content type is stored as application/octet-stream, and names no object', () => {
    expect(normalizeContentType(name)).toBe('application/octet-stream');
    expect(newObjectName(name)).toMatch(/^[A-Za-z0-9_-]{22}\.bin$/);
    expect(contentTypeOfName(`${'a'.repeat(22)}.${name}`)).toBeUndefined();
  });

  it('as a required property of a client tool, gets an argument of its own from the simulator', () => {
    const prompt = 'call the lookup tool';
    const script = scriptReply(
      {
        model: 'gpt-4o',
        messages: [{ role: 'user', content: prompt }],
        tools: [
          {
            type: 'function',
            function: { name: 'lookup', parameters: { type: 'object', properties: {}, required: [name] } },
          },
        ],
        toolChoice: 'required',
        maxTokens: null,
      } as never,
      parseDirectives(prompt),
    );
    expect(script.kind).toBe('tool');
    const args = JSON.parse(script.kind === 'tool' ? script.fragments.join('') : '{}');
    expect(Object.keys(args)).toEqual([name]);
  });
});
