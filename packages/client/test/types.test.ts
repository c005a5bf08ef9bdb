// The generated types are the server's current document, and they type-check generate() per model.
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { GENERATED_TYPES, loadDocument } from '../scripts/load-document.js';
import { typesFromDocument } from '../scripts/openapi-types.js';

const here = dirname(fileURLToPath(import.meta.url));

function compile(file: string): string[] {
  const program = ts.createProgram([file], {
    strict: true,
    noEmit: true,
    target: ts.ScriptTarget.ES2022,
    module: ts.ModuleKind.NodeNext,
    moduleResolution: ts.ModuleResolutionKind.NodeNext,
    types: ['node'],
    lib: ['lib.es2022.d.ts'],
    skipLibCheck: true,
  });
  return ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const where = diagnostic.file
      ? `${diagnostic.file.fileName.replace(/.*packages\/client\//, '')}:${
          diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0).line + 1
        }: `
      : '';
    return `${where}${ts.flattenDiagnosticMessageText(diagnostic.messageText, '\n')}`;
  });
}

describe('generated types', () => {
  it('src/generated/openapi.ts is what the current server document generates (else run generate-types)', async () => {
    const fresh = await typesFromDocument(await loadDocument());
    const committed = readFileSync(GENERATED_TYPES, 'utf8');
    expect(
      committed === fresh,
      'packages/client/src/generated/openapi.ts is stale: run `node bin/run-ts.mjs packages/client/scripts/generate-types.ts`',
    ).toBe(true);
  }, 120_000);

  it('generate() is type-checked per model: a wrong parameter for seedance-2 does not compile', () => {
    expect(compile(join(here, 'types/generate-params.ts'))).toEqual([]);
  }, 120_000);
});
