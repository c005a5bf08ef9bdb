// The generated types are the server's current document, and they type-check generate() per model.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { GENERATED_TYPES, loadDocument } from '../scripts/load-document.js';
import { typesFromDocument } from '../scripts/openapi-types.js';

const here = dirname(fileURLToPath(import.meta.url));
const PACKAGE_DIR = resolve(here, '..');

function compile(file: string): string[] {
  const program = ts.createProgram([file], {
    // '@gengate/client' in the README's TypeScript is this package's source.
    paths: { '@gengate/client': [join(PACKAGE_DIR, 'src/index.ts')] },
    typeRoots: [resolve(PACKAGE_DIR, '../../node_modules/@types')],
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

  it("the README's TypeScript example compiles, its @ts-expect-error line included", () => {
    const readme = readFileSync(join(PACKAGE_DIR, 'README.md'), 'utf8');
    const blocks = [...readme.matchAll(/```ts\n([\s\S]*?)```/g)].map((match) => match[1]!);
    expect(blocks.length).toBeGreaterThan(0);
    const dir = mkdtempSync(join(tmpdir(), 'gengate-readme-ts-'));
    try {
      const file = join(dir, 'readme.mts');
      writeFileSync(file, `${blocks.join('\n')}\nexport {};\n`);
      expect(compile(file)).toEqual([]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120_000);
});
