// Portkey's open-source gateway (@portkey-ai/gateway, a dev dependency), started the way its README
// says, and the headers that make it forward to our fake upstream as an OpenAI provider.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { freePort } from './ports.js';
import { type ProcessGroup, ROOT } from './processes.js';
import type { Service } from './services.js';

const PACKAGE_DIR = join(ROOT, 'node_modules/@portkey-ai/gateway');

export function portkeyVersion(): string | null {
  try {
    return JSON.parse(readFileSync(join(PACKAGE_DIR, 'package.json'), 'utf8')).version;
  } catch {
    return null;
  }
}

export async function startPortkey(group: ProcessGroup): Promise<Service> {
  if (!portkeyVersion()) throw new Error('@portkey-ai/gateway is not installed (npm install)');
  const port = await freePort();
  const child = group.spawnNode(
    'portkey',
    // Run as its README says; its default trusted custom hosts already include 127.0.0.1.
    [
      '-r',
      join(ROOT, 'bench/portkey-loopback.cjs'),
      join(PACKAGE_DIR, 'build/start-server.js'),
      `--port=${port}`,
      '--headless',
    ],
  );
  // It clears the console and shows a 1 s spinner first; only this line means it accepts requests.
  await child.ready(/Ready for connections!/, 30_000);
  return { name: 'portkey', origin: `http://127.0.0.1:${port}`, port, child };
}

export function portkeyHeaders(upstreamBaseUrl: string): Record<string, string> {
  return {
    'x-portkey-provider': 'openai',
    'x-portkey-custom-host': upstreamBaseUrl,
    authorization: 'Bearer sk-fake',
  };
}
