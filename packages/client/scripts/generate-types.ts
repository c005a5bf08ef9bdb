// Writes src/generated/openapi.ts from the server's OpenAPI document.
// Run from the repository root: node bin/run-ts.mjs packages/client/scripts/generate-types.ts
// (or `npm run generate-types -w @gengate/client`).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { GENERATED_TYPES, loadDocument } from './load-document.js';
import { typesFromDocument } from './openapi-types.js';

const text = await typesFromDocument(await loadDocument());
mkdirSync(dirname(GENERATED_TYPES), { recursive: true });
writeFileSync(GENERATED_TYPES, text);
console.log(`wrote ${GENERATED_TYPES} (${text.length} characters)`);
