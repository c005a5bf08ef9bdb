// The types of the `openai` package that gengate's /v1 answers are checked against. Every exported
// declaration here is a root of the generated JSON Schema (test/contracts/sdk-schemas.ts); the SDK
// types keep their own names as schema definitions (`ChatCompletion`, `ResponseStreamEvent`, ...).
// Type-only: nothing here runs, and `tsc` fails if an update of the package renames a type.
import type { ConversationCursorPageResponse, PageResponse } from 'openai/core/pagination';
import type { ChatCompletion, ChatCompletionChunk } from 'openai/resources/chat/completions';
import type { ImagesResponse } from 'openai/resources/images';
import type { Model } from 'openai/resources/models';
import type { Response, ResponseStreamEvent } from 'openai/resources/responses/responses';
import type { ErrorObject } from 'openai/resources/shared';
import type { Video, VideoDeleteResponse } from 'openai/resources/videos';

/** The objects, each under its SDK name. */
export type SdkObject =
  | ChatCompletion
  | ChatCompletionChunk
  | Response
  | ResponseStreamEvent
  | ImagesResponse
  | Video
  | VideoDeleteResponse
  | Model;

/**
 * An error answer. The SDK types the object (`ErrorObject`) and reads it from the body's `error`
 * field (its `APIError`), so the body is that object under `error`.
 */
export interface ErrorBody {
  error: ErrorObject;
}

/** GET /v1/models, as the SDK's `ModelsPage` reads it. */
export type ModelList = PageResponse<Model>;

/** GET /v1/videos, as the SDK's `VideosPage` (a conversation cursor page) reads it. */
export type VideoList = ConversationCursorPageResponse<Video>;
