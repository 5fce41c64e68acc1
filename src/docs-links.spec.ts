import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The documents a clone carries must be readable from the clone alone: every relative
 * link in README.md and docs/*.md names a file of the repository (and a heading that
 * exists, for links into a markdown file), and no path points outside the checkout,
 * as `../shared/spec/…` once did.
 */
const root = join(__dirname, '..');
const documents = [
  'README.md',
  ...readdirSync(join(root, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
];

/** GitHub's anchor of a heading: lowercase, punctuation dropped, spaces to hyphens. */
function anchorOf(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, 'utf8').replace(/```[\s\S]*?```/g, '');
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of text.matchAll(/^#{1,6} (.+)$/gm)) {
    const base = anchorOf(heading.replace(/`/g, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  return anchors;
}

function linksOf(text: string): string[] {
  const prose = text.replace(/```[\s\S]*?```/g, '');
  return [...prose.matchAll(/\]\(([^)\s]+)\)/g), ...prose.matchAll(/\b(?:href|src)="([^"]+)"/g)].map((m) => m[1]);
}

describe.each(documents)('%s', (doc) => {
  const file = join(root, doc);
  const text = readFileSync(file, 'utf8');

  it('links only to files and headings that exist in the repository', () => {
    const broken: string[] = [];
    for (const link of linksOf(text)) {
      if (/^[a-z]+:/i.test(link)) continue; // http:, https:, mailto:
      const [path, anchor] = link.split('#');
      const target = path ? resolve(dirname(file), decodeURIComponent(path)) : file;
      if (relative(root, target).startsWith('..') || !existsSync(target)) broken.push(`${link} (no such file in the repository)`);
      else if (anchor && target.endsWith('.md') && !anchorsOf(target).has(anchor)) broken.push(`${link} (no such heading)`);
    }
    expect(broken).toEqual([]);
  });

  it('names no path outside the repository, nor one that does not exist', () => {
    const outside = [...text.matchAll(/`(\.\.\/[^`\s]+)`/g)]
      .map((m) => m[1])
      .filter((p) => {
        const target = resolve(dirname(file), p);
        return relative(root, target).startsWith('..') || !existsSync(target);
      });
    expect(outside).toEqual([]);
  });
});
