#!/usr/bin/env node
// Runs any TypeScript file given as the first argument (used by bench and scripts).
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';
import { register } from 'tsx/esm/api';

register();
const file = process.argv[2];
process.argv.splice(2, 1);
await import(pathToFileURL(resolve(file)).href);
