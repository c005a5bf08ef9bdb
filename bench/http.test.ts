import { describe, expect, it } from 'vitest';
import { type HttpAnswer, isMissingRoute } from './http.js';

const answer = (status: number, json: unknown): HttpAnswer => ({ status, json, text: JSON.stringify(json) });

describe('isMissingRoute', () => {
  it('recognises gengate’s answer for a route that is not registered', () => {
    const notFound = answer(404, {
      error: {
        message: 'No route for POST /generate',
        type: 'not_found_error',
        code: 'not_found',
        param: null,
      },
    });
    expect(isMissingRoute(notFound)).toBe(true);
  });

  it('does not take a 404 of an existing route (unknown task or model) for a missing route', () => {
    expect(
      isMissingRoute(answer(404, { error: { message: 'Task not found', code: 'task_not_found' } })),
    ).toBe(false);
    expect(
      isMissingRoute(
        answer(404, { error: { message: 'Model not found or inactive', code: 'model_not_found' } }),
      ),
    ).toBe(false);
    expect(isMissingRoute(answer(404, null))).toBe(false);
    expect(isMissingRoute(answer(200, { error: { message: 'No route for x' } }))).toBe(false);
  });
});
