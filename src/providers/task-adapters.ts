// The media adapter types gengate ships: one entry per upstream API, each in its own folder. The
// registry and the runner never name a provider; they find the adapter of a provider's `type` here.
import type { TaskAdapterType } from './adapter-type.js';
import { arkAdapterType } from './ark/index.js';
import { falAdapterType } from './fal/index.js';
import { geminiAdapterType } from './gemini/index.js';
import { klingAdapterType } from './kling/index.js';
import { openAiMediaAdapterType } from './openai/media-index.js';
import { replicateAdapterType } from './replicate/index.js';

/** Every shipped media adapter type. */
export const TASK_ADAPTER_TYPES: TaskAdapterType[] = [
  arkAdapterType,
  falAdapterType,
  geminiAdapterType,
  klingAdapterType,
  openAiMediaAdapterType,
  replicateAdapterType,
];
