import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { COMPILED_CLI_ENV, removeCompiledCli } from './helpers/compiled-cli';
import { validateRecordedResponses } from './helpers/openapi-responses';
import { RESPONSE_LOG_DIR_ENV } from './helpers/response-recorder';

/**
 * Stops the run's PostgreSQL, then checks every JSON answer the e2e files recorded
 * against the OpenAPI document (packages/sdk/generated/openapi.json, which the SDK test keeps equal
 * to what the service serves). A mismatch fails the run: jest exits non-zero when
 * the global teardown throws.
 */
export default async function globalTeardown(): Promise<void> {
  const embedded = (globalThis as { __embeddedPostgres?: { stop(): Promise<void> } }).__embeddedPostgres;
  await embedded?.stop();
  removeCompiledCli(process.env[COMPILED_CLI_ENV]);
  delete process.env[COMPILED_CLI_ENV];

  const dir = process.env[RESPONSE_LOG_DIR_ENV];
  if (!dir) return;
  try {
    const document = JSON.parse(readFileSync(join(__dirname, '..', 'packages', 'sdk', 'generated', 'openapi.json'), 'utf8'));
    const { failures } = validateRecordedResponses(dir, document);
    if (failures.length > 0) {
      const shown = failures.slice(0, 40).join('\n  ');
      throw new Error(
        `${failures.length} API answer(s) do not match the OpenAPI document (packages/sdk/generated/openapi.json; run npm run sdk:generate after changing it):\n  ${shown}` +
          (failures.length > 40 ? `\n  … and ${failures.length - 40} more` : ''),
      );
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    delete process.env[RESPONSE_LOG_DIR_ENV];
  }
}
