// Process entry: `gengate serve|migrate|<admin command>`.

import { runCli } from './cli/cli.js';
import { ConfigError, loadConfig } from './config.js';

try {
  const code = await runCli(process.argv.slice(2), loadConfig());
  if (code !== undefined) process.exit(code);
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
