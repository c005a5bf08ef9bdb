// The types of `@anthropic-ai/sdk` that gengate's Messages API answers are checked against. Every
// exported declaration here is a root of the generated JSON Schema (test/contracts/sdk-schemas.ts);
// the SDK types keep their own names as schema definitions (`Message`, `RawMessageStreamEvent`, ...).
// Type-only: nothing here runs, and `tsc` fails if an update of the package renames a type.
import type {
  Message,
  MessageTokensCount,
  RawMessageStreamEvent,
  StopReason,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { ErrorObject, ErrorResponse } from '@anthropic-ai/sdk/resources/shared';

/** The objects, each under its SDK name. */
export type SdkObject = Message | RawMessageStreamEvent | MessageTokensCount | ErrorResponse;

/** A non-streaming answer: a Message whose stop_reason is set (only a stream's start has null). */
export interface CompleteMessage extends Message {
  stop_reason: StopReason;
}

/**
 * The two stream events the SDK does not type, because its stream reader consumes them itself
 * (core/streaming.js): `ping`, skipped, and `error`, whose data it reads as an error body and
 * throws (`body.error.type`).
 */
export interface PingEvent {
  type: 'ping';
}

export interface ErrorEvent {
  type: 'error';
  error: ErrorObject;
}
