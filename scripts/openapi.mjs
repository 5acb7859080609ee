// Writes the API's OpenAPI 3.1 document to docs/openapi.json, from the built code (npm run build first;
// `npm run openapi` does both). With --check it writes nothing and fails when the committed file differs
// from what the routes describe now: a route changed without its description fails the test suite.
import 'reflect-metadata';
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('..', import.meta.url));
const target = `${root}docs/openapi.json`;
const { describeApi, documentText } = await import(`${root}dist/apps/api/src/openapi/describe-api.js`);

const api = await describeApi();
const text = documentText(api.build());
if (process.argv.includes('--check')) {
  let committed = '';
  try {
    committed = readFileSync(target, 'utf8');
  } catch {
    // missing: reported below like any difference
  }
  if (committed !== text) {
    console.error('docs/openapi.json does not match the routes: run `npm run openapi` and commit the file');
    process.exit(1);
  }
  console.log(`docs/openapi.json matches the ${api.routes.length} routes`);
} else {
  writeFileSync(target, text);
  console.log(`wrote docs/openapi.json (${api.routes.length} routes)`);
}
