// What every inbound hook (an upstream provider's callback, a payment provider's notification)
// takes and answers in the document: a raw body of any content type, and `{"received": true}`.
// Its own module because operations.ts imports the payment operations, which need these too.
import type { BodyDoc, SuccessDoc } from './operation-doc.js';

export const hookBody: BodyDoc = {
  schema: { type: 'object', additionalProperties: true },
  required: false,
  alsoAs: ['*/*'],
  raw: true,
};

export const hookReceived: SuccessDoc[] = [
  {
    status: 200,
    description: 'Taken',
    schema: {
      type: 'object',
      properties: { received: { type: 'boolean', enum: [true] } },
      required: ['received'],
    },
  },
];
