// @gengate/client: the gengate native API from JavaScript and TypeScript (Node ≥ 20, Deno, Bun,
// browsers): generate, wait, download, verify webhooks.
export {
  type CallOptions,
  type DownloadOptions,
  type DownloadResult,
  type GenerateOptions,
  Gengate,
  type GengateOptions,
  type RunOptions,
  type WaitOptions,
} from './client.js';
export {
  ApiError,
  AuthenticationError,
  ConnectionError,
  type ErrorBody,
  GengateError,
  InsufficientBalanceError,
  MaintenanceError,
  NotFoundError,
  PermissionDeniedError,
  RateLimitError,
  TaskFailedError,
  ValidationError,
  WaitTimeoutError,
  WebhookVerificationError,
} from './errors.js';
export type { components, paths } from './generated/openapi.js';
export type * from './types.js';
export { type VerifyWebhookOptions, verifyWebhook, type WebhookHeaders } from './webhooks.js';
