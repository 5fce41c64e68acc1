import { execFile } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';

import { importEdges, measure } from '../scripts/import-graph';

/*
 * Issue 27: `npm run lint` refuses an import that points up the layers of
 * scripts/layers.mjs. Two probe files go into the real tree for the time of the test
 * and are linted with the project's own eslint.config.mjs, as `npm run lint` runs it.
 */
const ROOT = join(__dirname, '..');
const UPWARD = join(ROOT, 'src/shared/layers-probe.tmp.ts');
const DOWNWARD = join(ROOT, 'src/projects/layers-probe.tmp.ts');
const CLIENT = join(ROOT, 'src/common/layers-probe.tmp.ts');

interface LintResult {
  filePath: string;
  messages: { ruleId: string | null; message: string }[];
}

/** The two rules under test here; `npm run lint` runs them and all the others. */
const RULES = ['boundaries/dependencies', 'no-restricted-imports'];

/**
 * The project's eslint.config.mjs, as `npm run lint` loads it, running only the rules under
 * test and without type information: neither rule reads types, and the type-aware program
 * of the whole project was 20 s of CPU, most of this file's time.
 */
async function lint(...files: string[]): Promise<LintResult[]> {
  const script = `
    const { ESLint } = require(${JSON.stringify(join(ROOT, 'node_modules/eslint'))});
    const eslint = new ESLint({
      cwd: ${JSON.stringify(ROOT)},
      overrideConfig: { languageOptions: { parserOptions: { projectService: false, project: false } } },
      ruleFilter: ({ ruleId }) => ${JSON.stringify(RULES)}.includes(ruleId),
    });
    eslint.lintFiles(${JSON.stringify(files)}).then((results) => process.stdout.write(JSON.stringify(results)));
  `;
  const { stdout } = await promisify(execFile)(process.execPath, ['-e', script], { cwd: ROOT, maxBuffer: 16 << 20 });
  return JSON.parse(stdout) as LintResult[];
}

describe('the layer rule', () => {
  // One eslint run for the three probes: the probes do not import each other.
  let results: Map<string, LintResult>;
  beforeAll(async () => {
    writeFileSync(UPWARD, "import { ProjectsService } from '../projects/projects.service';\n\nexport const probe = ProjectsService;\n");
    writeFileSync(
      DOWNWARD,
      "import { newId } from '../common/ids';\nimport { DEFAULT_TTL } from '../shared/ttl';\n\nexport const probe = [newId, DEFAULT_TTL];\n",
    );
    writeFileSync(
      CLIENT,
      "import { StatichostClient } from '../../packages/sdk';\nimport { formatBytes } from '../../packages/shared/format-bytes';\n\nexport const probe = [formatBytes, StatichostClient];\n",
    );
    results = new Map((await lint(UPWARD, DOWNWARD, CLIENT)).map((result) => [result.filePath, result]));
    // The two tests' former budgets together (300 s each): a loaded machine is slow at this.
  }, 600_000);
  afterAll(() => {
    rmSync(UPWARD, { force: true });
    rmSync(DOWNWARD, { force: true });
    rmSync(CLIENT, { force: true });
  });

  it('refuses a shared value importing a feature, and lets a feature import shared and common', () => {
    const [upward, downward] = [results.get(UPWARD)!, results.get(DOWNWARD)!];
    expect(upward.messages).toEqual([
      expect.objectContaining({ ruleId: 'boundaries/dependencies', message: expect.stringContaining('src/shared may not import src/projects') }),
    ]);
    expect(downward.messages).toEqual([]);
  });

  it('refuses the server importing one of its clients, and lets it use what all of them share', () => {
    const client = results.get(CLIENT)!;
    expect(client.messages).toEqual([
      expect.objectContaining({ ruleId: 'no-restricted-imports', message: expect.stringContaining('The server does not import its clients') }),
    ]);
  });
});

describe('the import graph of src/', () => {
  it('has no upward import and no two-way folder pair beyond the entity list, and every folder in a layer', () => {
    const figures = measure(importEdges());
    expect(figures.unranked).toEqual([]);
    expect(figures.upwardEdges.map((e) => `${e.file} -> ${e.target}`)).toEqual([]);
    expect(figures.twoWay.filter((pair) => !pair.declared).map((pair) => pair.pair)).toEqual([]);
  });
});
