// Prints the OpenAPI 3.1 document of gengate with the default catalog, without listening:
//   node bin/run-ts.mjs scripts/openapi.ts > openapi.json
import { defaultCatalogDocument } from '../src/http/openapi/standalone.js';

process.stdout.write(`${JSON.stringify(await defaultCatalogDocument(), null, 2)}\n`);
