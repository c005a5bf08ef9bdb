// The client's types from the server's OpenAPI document, with openapi-typescript. One function, so
// the generate-types script and the staleness test produce the same text from the same document.
import openapiTS, { astToString } from 'openapi-typescript';

const HEADER = [
  '// Generated from the gengate OpenAPI document by packages/client/scripts/generate-types.ts.',
  '// Do not edit: run `npm run generate-types -w @gengate/client` after the API changes.',
  '// A test fails when this file differs from what the current server document generates.',
  '',
].join('\n');

export async function typesFromDocument(document: unknown): Promise<string> {
  const ast = await openapiTS(document as Parameters<typeof openapiTS>[0], {
    // A parameter with a default is optional to send: openapi-typescript would make it required.
    defaultNonNullable: false,
    // A free-form object (a model's params_schema, its example) is `Record<string, unknown>`, not `never`-valued.
    emptyObjectsUnknown: true,
  });
  return `${HEADER}${astToString(ast)}`;
}
