import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { generateApiTypes, SCHEMA_FILE } from '../../scripts/gen-api-types.js';

test("the web app's API types match the service's OpenAPI document (run npm run gen:api)", async () => {
  const committed = fs.readFileSync(SCHEMA_FILE, 'utf8');
  assert.ok(committed === (await generateApiTypes()), 'web/src/api/schema.d.ts is out of date: run npm run gen:api');
});
