import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { openApiToMarkdown, typeOf } from './openapi-to-markdown';

const root = join(__dirname, '..', '..');
const committed = JSON.parse(readFileSync(join(root, 'packages/sdk/generated/openapi.json'), 'utf8'));

describe('docs/api.md', () => {
  // openapi.json itself is checked against the running service (sdk:check, test/clients/sdk.e2e-spec.ts).
  it('is what the committed OpenAPI document gives (else run npm run sdk:generate)', () => {
    expect(readFileSync(join(root, 'docs/api.md'), 'utf8')).toBe(openApiToMarkdown(committed));
  });

  it('has every operation and every schema of the document', () => {
    const text = openApiToMarkdown(committed);
    for (const [path, item] of Object.entries<Record<string, unknown>>(committed.paths)) {
      for (const method of Object.keys(item)) expect(text).toContain(`### \`${method.toUpperCase()} ${path}\``);
    }
    for (const name of Object.keys(committed.components.schemas)) expect(text).toContain(`### ${name}\n`);
  });
});

describe('typeOf', () => {
  it('writes references as links, arrays, enums and nullable values readably', () => {
    expect(typeOf({ $ref: '#/components/schemas/DeploymentView' })).toBe('[DeploymentView](#deploymentview)');
    expect(typeOf({ type: 'array', items: { $ref: '#/components/schemas/X' } })).toBe('[X](#x)[]');
    expect(typeOf({ type: 'string', enum: ['pending', 'verified', null], nullable: true })).toBe('one of `"pending"`, `"verified"` or null');
    expect(typeOf({ type: 'integer' })).toBe('integer');
  });
});
