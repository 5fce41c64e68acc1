import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

import { preProcessFile } from 'typescript';

const SRC = resolve(__dirname, '..');

/** The top-level folders of src/ that the files of `folder` import from (type-only imports included). */
function importedFolders(folder: string): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const files = (readdirSync(join(SRC, folder), { recursive: true }) as string[]).filter((f) => f.endsWith('.ts'));
  for (const file of files) {
    const path = join(SRC, folder, file);
    for (const { fileName } of preProcessFile(readFileSync(path, 'utf8'), true, true).importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = relative(SRC, resolve(dirname(path), fileName)).split(sep)[0];
      if (target !== folder) found.set(target, [...(found.get(target) ?? []), `${folder}/${file}`]);
    }
  }
  return found;
}

// The site router asks the gates; the gates record visitors through a port the leads
// module binds. One direction each: sites → gates ← leads.
describe('gates imports', () => {
  it('gates/ imports neither sites/ nor leads/', () => {
    const imports = importedFolders('gates');
    expect(imports.get('sites')).toBeUndefined();
    expect(imports.get('leads')).toBeUndefined();
  });

  it('leads/ does not import sites/', () => {
    expect(importedFolders('leads').get('sites')).toBeUndefined();
  });
});
