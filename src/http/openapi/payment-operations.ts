// The OpenAPI entries of money in (top-ups by card and by code, the payment hooks, the operator's
// list, refunds and codes); merged into OPERATIONS.
import type { JsonSchema } from './components.js';
import { hookBody, hookReceived } from './hook-docs.js';
import type { OperationDoc } from './operation-doc.js';

const topup: JsonSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'tu_…' },
    object: { type: 'string', enum: ['topup'] },
    status: { type: 'string', enum: ['pending', 'succeeded', 'canceled', 'refunded'] },
    method: { type: 'string', enum: ['yookassa', 'stripe'] },
    amount_rub: { type: 'number' },
    created_at: { type: 'string', format: 'date-time' },
    paid_at: { type: ['string', 'null'], format: 'date-time' },
  },
  required: ['id', 'status', 'method', 'amount_rub', 'created_at', 'paid_at'],
};

const adminTopup: JsonSchema = {
  allOf: [
    topup,
    {
      type: 'object',
      properties: {
        key_id: { type: 'integer' },
        messaging_id: { type: 'integer' },
        provider_payment_id: { type: ['string', 'null'] },
        charge: {
          type: 'object',
          properties: { currency: { type: 'string' }, amount_minor: { type: 'integer' } },
        },
        cancel_reason: { type: ['string', 'null'] },
        refunded_at: { type: ['string', 'null'], format: 'date-time' },
      },
      required: ['key_id', 'messaging_id', 'provider_payment_id'],
    },
  ],
};

const list = (item: JsonSchema): JsonSchema => ({
  type: 'object',
  properties: {
    object: { type: 'string', enum: ['list'] },
    data: { type: 'array', items: item },
    has_more: { type: 'boolean' },
  },
  required: ['data', 'has_more'],
});

const paging = [
  {
    name: 'limit',
    description: 'At most this many (1 to 100)',
    schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
  },
  {
    name: 'after',
    description: 'The id of the last top-up of the previous page',
    schema: { type: 'string' },
  },
];

export const PAYMENT_OPERATIONS: Record<string, OperationDoc> = {
  'GET /me/topup-methods': {
    operationId: 'listTopupMethods',
    success: [
      {
        status: 200,
        description:
          'The payment methods that are on, the bounds of one top-up, and whether an email is required',
        schema: {
          type: 'object',
          properties: {
            methods: { type: 'array', items: { type: 'string', enum: ['yookassa', 'stripe'] } },
            min_rub: { type: 'number' },
            max_rub: { type: 'number' },
            receipts: { type: 'boolean' },
          },
          required: ['methods', 'min_rub', 'max_rub', 'receipts'],
        },
      },
    ],
  },
  'POST /me/topups': {
    operationId: 'createTopup',
    idempotent: true,
    body: {
      required: true,
      schema: {
        type: 'object',
        properties: {
          amount_rub: {
            description: 'Rubles, at most 2 decimals, within the bounds',
            oneOf: [{ type: 'number' }, { type: 'string' }],
          },
          method: { type: 'string', enum: ['yookassa', 'stripe'] },
          return_url: {
            type: 'string',
            format: 'uri',
            description: 'Where the payer returns; default: the panel',
          },
          email: { type: 'string', format: 'email', description: 'The payer; required when receipts are on' },
        },
        required: ['amount_rub', 'method'],
      },
    },
    success: [
      {
        status: 201,
        description: 'The pending top-up, with the payment page to send the payer to',
        schema: {
          allOf: [
            topup,
            {
              type: 'object',
              properties: { confirmation_url: { type: 'string', format: 'uri' } },
              required: ['confirmation_url'],
            },
          ],
        },
      },
    ],
    errors: [
      'unknown_field',
      'invalid_parameter',
      'topup_method_unavailable',
      'invalid_amount',
      'email_required',
      'payment_provider_error',
      'payment_provider_timeout',
    ],
  },
  'GET /me/topups': {
    operationId: 'listTopups',
    success: [{ status: 200, description: "The calling key's top-ups, newest first", schema: list(topup) }],
    errors: ['invalid_parameter'],
    query: paging,
  },
  'GET /me/topups/{id}': {
    operationId: 'getTopup',
    success: [{ status: 200, description: 'The top-up', schema: topup }],
    errors: ['not_found'],
  },
  'POST /me/redeem': {
    operationId: 'redeemCode',
    body: {
      required: true,
      schema: { type: 'object', properties: { code: { type: 'string' } }, required: ['code'] },
    },
    success: [
      {
        status: 200,
        description: 'Credited',
        schema: {
          type: 'object',
          properties: { amount_rub: { type: 'number' }, key_balance: { type: 'number' } },
          required: ['amount_rub', 'key_balance'],
        },
      },
    ],
    errors: ['unknown_field', 'missing_parameter', 'code_not_found', 'code_unavailable'],
  },
  'POST /hooks/payments/{method}': {
    operationId: 'paymentNotification',
    summary: "A payment provider's notification (for YooKassa and Stripe, not for clients)",
    description:
      'YooKassa: read only from YOOKASSA_NOTIFY_IPS (else 403), and only as the id of a payment that is then read back. Stripe: verified by Stripe-Signature (else 400). A method that is off answers 404.',
    body: hookBody,
    success: hookReceived,
    errors: ['not_found', 'invalid_notification', 'ip_not_allowed', 'upstream_error', 'payload_too_large'],
  },
  'GET /admin/topups': {
    operationId: 'adminListTopups',
    success: [
      { status: 200, description: 'Top-ups of every account, newest first', schema: list(adminTopup) },
    ],
    errors: ['invalid_parameter'],
    query: [
      {
        name: 'status',
        description: 'Top-up status',
        schema: { type: 'string', enum: ['pending', 'succeeded', 'canceled', 'refunded'] },
      },
      { name: 'method', description: 'Payment method', schema: { type: 'string' } },
      { name: 'messaging_id', description: 'The account', schema: { type: 'integer' } },
      ...paging,
    ],
  },
  'POST /admin/topups/{id}/refund': {
    operationId: 'adminRefundTopup',
    body: {
      required: false,
      schema: {
        type: 'object',
        properties: { amount_rub: { type: 'number', description: 'Default: all of it' } },
      },
    },
    success: [
      {
        status: 200,
        description:
          'The top-up after the refund (refunded, or succeeded again when the provider refused it) and the refund',
        schema: {
          allOf: [
            adminTopup,
            { type: 'object', properties: { refund: { type: 'object' } }, required: ['refund'] },
          ],
        },
      },
    ],
    errors: [
      'not_found',
      'unknown_field',
      'invalid_amount',
      'topup_method_unavailable',
      'topup_not_refundable',
      'refund_exceeds_balance',
    ],
  },
  'POST /admin/codes': {
    operationId: 'adminCreateCodes',
    body: {
      required: true,
      schema: {
        type: 'object',
        properties: {
          amount_rub: { type: 'number' },
          count: { type: 'integer', minimum: 1, maximum: 1000, default: 1 },
          expires_at: {
            description: 'ISO 8601 time or Unix seconds',
            oneOf: [{ type: 'string' }, { type: 'integer' }],
          },
        },
        required: ['amount_rub'],
      },
    },
    success: [
      {
        status: 201,
        description: 'The codes, shown this once (only their hashes are kept)',
        schema: {
          type: 'object',
          properties: { codes: { type: 'array', items: { type: 'string' } } },
          required: ['codes'],
        },
      },
    ],
    errors: ['unknown_field', 'invalid_amount', 'invalid_parameter'],
  },
};
