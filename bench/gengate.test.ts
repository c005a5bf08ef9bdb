import { describe, expect, it } from 'vitest';
import { npmStartNodeFlags } from './gengate.js';

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
