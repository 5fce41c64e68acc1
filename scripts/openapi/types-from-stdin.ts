/**
 * Reads an OpenAPI document on stdin and prints the SDK's types for it on stdout,
 * writing no file. The SDK test uses it to generate from the running service's
 * document (openapi-typescript is ESM inside, which jest cannot load).
 */
import { text } from 'node:stream/consumers';

import { openApiToTypeScript } from './openapi-to-typescript';

text(process.stdin)
  .then((input) => openApiToTypeScript(JSON.parse(input)))
  .then((types) => process.stdout.write(types))
  .catch((err) => {
    console.error(err);
    process.exit(1);
  });
