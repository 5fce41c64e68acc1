/**
 * npm run sdk:generate — boots the real app (an embedded PostgreSQL in a temporary
 * directory unless DATABASE_URL is set), takes its OpenAPI document and writes
 * packages/sdk/generated/openapi.json, the SDK's types, packages/sdk/generated/schema.ts, and the
 * API reference to read, docs/api.md.
 * `--check` writes nothing and exits 1 when the committed files are out of date.
 */
import 'reflect-metadata';

import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

import { buildOpenApiDocument, createApp } from '../../src/app.factory';
import { freePort } from '../../src/common/free-port';
import { startEmbeddedPostgres } from '../../src/database/embedded-postgres';
import { documentText } from './document-text';
import { openApiToMarkdown } from './openapi-to-markdown';
import { openApiToTypeScript } from './openapi-to-typescript';

const GENERATED_DIR = join(__dirname, '..', '..', 'packages', 'sdk', 'generated');
export const DOCUMENT_FILE = join(GENERATED_DIR, 'openapi.json');
export const SCHEMA_FILE = join(GENERATED_DIR, 'schema.ts');
export const API_DOC_FILE = join(__dirname, '..', '..', 'docs', 'api.md');

async function serviceDocument(): Promise<object> {
  const dataDir = await mkdtemp(join(tmpdir(), 'statichost-sdk-'));
  let databaseUrl = process.env.DATABASE_URL;
  let pg: { stop(): Promise<void> } | undefined;
  try {
    if (!databaseUrl) {
      const embedded = await startEmbeddedPostgres({ dataDir, port: await freePort() });
      pg = embedded;
      databaseUrl = embedded.url;
    }
    const { app } = await createApp({
      env: { NODE_ENV: 'test', LOG_LEVEL: 'silent', DATA_DIR: dataDir, DATABASE_URL: databaseUrl, SWEEP_INTERVAL_SECONDS: '0' },
    });
    try {
      return buildOpenApiDocument(app);
    } finally {
      await app.close();
    }
  } finally {
    await pg?.stop();
    await rm(dataDir, { recursive: true, force: true });
  }
}

async function readOrEmpty(file: string): Promise<string> {
  return readFile(file, 'utf8').catch(() => '');
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const document = await serviceDocument();
  const outputs: [string, string][] = [
    [DOCUMENT_FILE, documentText(document)],
    [SCHEMA_FILE, await openApiToTypeScript(document)],
    [API_DOC_FILE, openApiToMarkdown(document)],
  ];
  let stale = 0;
  for (const [file, text] of outputs) {
    const name = relative(process.cwd(), file);
    if ((await readOrEmpty(file)) === text) {
      console.log(`${name}: up to date`);
    } else if (check) {
      stale++;
      console.error(`${name}: out of date; run npm run sdk:generate`);
    } else {
      await writeFile(file, text);
      console.log(`${name}: written`);
    }
  }
  process.exitCode = stale > 0 ? 1 : 0;
}

if (require.main === module) {
  main().catch((err) => {
    console.error(err);
    process.exit(1);
  });
}
