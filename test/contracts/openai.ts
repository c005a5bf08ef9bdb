// The `openai` package's types as JSON Schema (test/contracts/openai-types.ts names them; see
// sdk-schemas.ts), for the contract tests of gengate's /v1 surface.
import { join } from 'node:path';
import { loadSdkContract } from './sdk-schemas.js';

export const openai = loadSdkContract('openai', join(import.meta.dirname, 'openai-types.ts'), {
  // `Response.output_text` is a convenience the SDK fills in on the client, joining the output's
  // text parts (lib/ResponsesParser.js, `rsp.output_text = texts.join('')`); the API sends no such
  // field, and OpenAI's API reference does not list it on the response object.
  clientSide: { Response: ['output_text'] },
});
