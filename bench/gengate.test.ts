import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { LocalObjectStore } from '../src/objects/local-store.js';
import { createObjectFanOut, npmStartNodeFlags } from './gengate.js';

describe('the bench starts gengate as npm start does', () => {
  it("takes the Node flags of package.json's start script", () => {
    expect(npmStartNodeFlags()).toEqual(['--max-semi-space-size=32']);
    expect(npmStartNodeFlags('node bin/gengate.mjs serve')).toEqual([]);
    expect(npmStartNodeFlags('node --a --b=2 bin/gengate.mjs serve')).toEqual(['--a', '--b=2']);
  });

  it('refuses a start script it cannot follow', () => {
    expect(() => npmStartNodeFlags('tsx src/main.ts')).toThrow(/does not run node/);
    expect(() => npmStartNodeFlags('node dist/main.js')).toThrow(/bin\/gengate.mjs/);
  });
});

describe('a data dir that has stored results before', () => {
  it('has every fan-out directory the local object store files objects under', async () => {
    const root = mkdtempSync(join(tmpdir(), 'bench-fanout-'));
    try {
      createObjectFanOut(root);
      expect(readdirSync(root)).toHaveLength(4096);
      const store = new LocalObjectStore(root);
      for (let i = 0; i < 50; i++)
        await store.put(Buffer.from(`object ${i}`), { contentType: 'image/png', maxBytes: 1_000 });
      // Every object landed in a directory that was already there.
      expect(readdirSync(root)).toHaveLength(4096);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
