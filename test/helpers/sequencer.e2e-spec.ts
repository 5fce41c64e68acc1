import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/*
 * The order jest starts files in (test/helpers/sequencer.js): with no stored timing, as in
 * a fresh clone, the slowest files of durations.json come first and the short unit specs last.
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports -- jest loads it as plain CommonJS
const SlowestFirst = require('./sequencer.js') as new (options: object) => { sort(tests: FakeTest[]): FakeTest[] };

interface FakeTest {
  path: string;
  context: object;
  duration?: number | null;
}

const ROOT = join(__dirname, '..', '..');

describe('the test sequencer', () => {
  let cacheDirectory: string;
  beforeAll(() => (cacheDirectory = mkdtempSync(join(tmpdir(), 'sequencer-'))));
  afterAll(() => rmSync(cacheDirectory, { recursive: true, force: true }));

  it('with no stored timings, starts the slowest listed files first and small unit specs last', () => {
    const context = { config: { cacheDirectory, id: 'fresh-clone' }, hasteFS: { getSize: (path: string) => statSync(path).size } };
    const files = ['src/shared/ttl.spec.ts', 'test/helpers/git-server.e2e-spec.ts', 'test/robustness.e2e-spec.ts', 'test/clients/cli.e2e-spec.ts'];
    const sorted = new SlowestFirst({ contexts: [context], globalConfig: {} }).sort(files.map((file) => ({ path: join(ROOT, file), context })));
    expect(sorted.map((test) => test.path.slice(ROOT.length + 1))).toEqual([
      'test/clients/cli.e2e-spec.ts',
      'test/robustness.e2e-spec.ts',
      'test/helpers/git-server.e2e-spec.ts',
      'src/shared/ttl.spec.ts',
    ]);
  });
});
