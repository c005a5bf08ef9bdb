#!/usr/bin/env node
// Runs the compiled build (dist/) when it is fresh: a process serves within a second of exec.
// A source edited since the build runs through tsx's loader instead (a dev dependency, so a
// development checkout never runs stale code); without tsx (a production install) it builds first.
import { build, buildIsFresh } from '../scripts/build.mjs';

async function loadTsx() {
  try {
    return await import('tsx/esm/api');
  } catch {
    return undefined;
  }
}

if (buildIsFresh()) {
  await import('../dist/main.js');
} else {
  const tsx = await loadTsx();
  if (tsx) {
    tsx.register();
    await import('../src/main.ts');
  } else {
    await build();
    await import('../dist/main.js');
  }
}
