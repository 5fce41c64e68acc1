/**
 * `npm run import-graph`: measures how the top-level folders of src/ import each other
 * (issue 27), against the layer order in scripts/layers.mjs (the one eslint enforces).
 *
 * How it counts: every non-spec .ts file under src/; every relative import in it (static
 * `import`/`export … from`, `import type` included, `import()` and `require()`), resolved to
 * a file; an edge is one such import whose file and target sit in different top-level folders
 * (a top-level file of src/ counts as the folder '(root)'). Upward: an edge to a folder
 * listed above the importer's. Two-way pair: two folders with edges both ways.
 *
 *   --list    print every upward edge (file → target) and the edges of each two-way pair
 *   --json    print the figures as JSON
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

import ts from 'typescript';

import { ALLOWED_UPWARD, LAYERS } from './layers.mjs';

export interface Edge {
  from: string;
  to: string;
  /** The importing and imported files, relative to src/. */
  file: string;
  target: string;
}

const SRC = resolve(__dirname, '..', 'src');

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.spec.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

function resolveImport(from: string, specifier: string): string | undefined {
  const base = resolve(dirname(from), specifier);
  const candidates = [base, base.replace(/\.js$/, '.ts'), `${base}.ts`, join(base, 'index.ts')];
  return candidates.find((path) => existsSync(path) && statSync(path).isFile());
}

/** The top-level folder of src/ a path (relative to src/) belongs to. */
export function folderOf(path: string): string {
  const parts = path.split(/[\\/]/);
  return parts.length === 1 ? '(root)' : parts[0];
}

export function importEdges(src = SRC): Edge[] {
  const edges: Edge[] = [];
  for (const path of sourceFiles(src)) {
    const { importedFiles } = ts.preProcessFile(readFileSync(path, 'utf8'), true, true);
    for (const { fileName } of importedFiles) {
      if (!fileName.startsWith('.')) continue;
      const target = resolveImport(path, fileName);
      if (target === undefined || !target.startsWith(src + sep)) continue;
      const file = relative(src, path);
      const targetFile = relative(src, target);
      const from = folderOf(file);
      const to = folderOf(targetFile);
      if (from !== to) edges.push({ from, to, file, target: targetFile });
    }
  }
  return edges;
}

/** Each folder's position, top (0) to bottom, in the layer order. */
export const RANK = new Map(LAYERS.flatMap((layer) => layer.folders).map((folder, index) => [folder, index]));

export function isUpward(edge: Edge): boolean {
  const from = RANK.get(edge.from);
  const to = RANK.get(edge.to);
  // A folder missing from the order is reported as unranked, never silently passed.
  if (from === undefined || to === undefined) return true;
  return to < from;
}

export function isDeclaredException(edge: Edge): boolean {
  return Object.entries(ALLOWED_UPWARD).some(([pair, files]) => {
    const [from, to] = pair.split(' -> ');
    return from === edge.from && (to === '*' || to === edge.to) && files.includes(edge.file.split(sep).join('/'));
  });
}

export function measure(edges: Edge[]) {
  const byPair = new Map<string, number>();
  for (const edge of edges) byPair.set(`${edge.from} -> ${edge.to}`, (byPair.get(`${edge.from} -> ${edge.to}`) ?? 0) + 1);
  const upward = edges.filter(isUpward);
  const undeclared = upward.filter((edge) => !isDeclaredException(edge));
  const twoWay: { pair: string; counts: [number, number]; declared: boolean }[] = [];
  for (const [pair, count] of byPair) {
    const [from, to] = pair.split(' -> ');
    const back = byPair.get(`${to} -> ${from}`);
    if (back === undefined || from > to) continue;
    const declared = edges
      .filter((e) => (e.from === from && e.to === to) || (e.from === to && e.to === from))
      .filter(isUpward)
      .every(isDeclaredException);
    twoWay.push({ pair: `${from} <-> ${to}`, counts: [count, back], declared });
  }
  const unranked = [...new Set(edges.flatMap((e) => [e.from, e.to]).filter((folder) => !RANK.has(folder)))];
  return {
    edges: edges.length,
    folderPairs: byPair.size,
    upward: upward.length,
    upwardUndeclared: undeclared.length,
    upwardPairs: new Set(undeclared.map((e) => `${e.from} -> ${e.to}`)).size,
    twoWayPairs: twoWay.filter((p) => !p.declared).length,
    twoWay,
    unranked,
    upwardEdges: undeclared,
  };
}

function main(): void {
  const args = process.argv.slice(2);
  const edges = importEdges();
  const figures = measure(edges);
  if (args.includes('--json')) {
    console.log(JSON.stringify({ ...figures, upwardEdges: undefined }, null, 2));
    return;
  }
  console.log(`import edges between folders of src/: ${figures.edges} (${figures.folderPairs} folder pairs)`);
  console.log(
    `upward edges: ${figures.upwardUndeclared} in ${figures.upwardPairs} folder pairs (+ ${figures.upward - figures.upwardUndeclared} declared exceptions)`,
  );
  console.log(`two-way folder pairs: ${figures.twoWayPairs} (+ ${figures.twoWay.length - figures.twoWayPairs} declared exceptions)`);
  for (const pair of figures.twoWay) console.log(`  ${pair.pair}  ${pair.counts[0]}/${pair.counts[1]}${pair.declared ? '  (declared exception)' : ''}`);
  if (figures.unranked.length > 0) console.log(`folders missing from scripts/layers.mjs: ${figures.unranked.join(', ')}`);
  if (args.includes('--list')) {
    console.log('\nupward edges:');
    for (const edge of figures.upwardEdges) console.log(`  ${edge.from} -> ${edge.to}  ${edge.file} -> ${edge.target}`);
  }
}

if (require.main === module) main();
