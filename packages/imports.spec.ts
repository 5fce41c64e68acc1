import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

import { preProcessFile } from 'typescript';

/**
 * The clients (SDK, CLI, MCP server), the helpers they share with the server and the
 * dashboard are apart from the server: they know it only through the generated OpenAPI
 * types (packages/sdk/generated/), so none of them may import a file of src/. Their
 * tests may use test/helpers/ (a temporary folder); nothing else outside packages/.
 */
const root = join(__dirname, '..');

function sources(dir: string): string[] {
  return (readdirSync(join(root, dir), { recursive: true }) as string[])
    .filter((f) => /\.tsx?$/.test(f) && !f.split(sep).includes('node_modules'))
    .map((f) => join(dir, f));
}

/** Each relative import (static, dynamic or require) of `file` that lands outside `allowed`, as `file -> target`. */
function importsOutside(file: string, allowed: string[]): string[] {
  const { importedFiles } = preProcessFile(readFileSync(join(root, file), 'utf8'), true, true);
  return importedFiles
    .map((i) => i.fileName)
    .filter((name) => name.startsWith('.'))
    .map((name) =>
      relative(root, resolve(root, dirname(file), name))
        .split(sep)
        .join('/'),
    )
    .filter((target) => !allowed.some((dir) => target === dir || target.startsWith(`${dir}/`)))
    .map((target) => `${file} -> ${target}`);
}

describe('the client packages import nothing of the server', () => {
  it('packages/: only packages/ (and test/helpers/ from a spec)', () => {
    const files = sources('packages');
    expect(files).toEqual(expect.arrayContaining([join('packages', 'cli', 'main.ts'), join('packages', 'mcp', 'server.ts')]));
    const offenders = files.flatMap((f) => importsOutside(f, f.endsWith('.spec.ts') ? ['packages', 'test/helpers'] : ['packages']));
    expect(offenders).toEqual([]);
  });

  it('web/src/: only web/ and packages/', () => {
    const files = sources(join('web', 'src'));
    expect(files.length).toBeGreaterThan(0);
    expect(files.flatMap((f) => importsOutside(f, ['web', 'packages']))).toEqual([]);
  });

  it('sees an import that reaches into src/', () => {
    const { importedFiles } = preProcessFile("import { x } from '../../src/projects/slug';\nconst y = require('../src/z');", true, true);
    expect(importedFiles.map((i) => i.fileName)).toEqual(['../../src/projects/slug', '../src/z']);
  });
});
