/**
 * Heap bytes per file of a deployment's manifest in the site cache: the Map of objects
 * the router kept before (one SiteFile with hex strings per file) against the
 * PackedManifest (src/sites/cache/packed-manifest.ts), and what PackedManifest.bytes
 * (the budget's estimate) says. Strings are built fresh per row, as pg hands them over.
 *
 *   node --expose-gc -r @swc-node/register bench/manifest-bytes.ts [files per deployment] [deployments]
 */
import { createHash } from 'node:crypto';

import { type ManifestEntry, PackedManifest } from '../src/sites/cache/packed-manifest';

const filesPer = Number(process.argv[2] ?? 200);
const deployments = Number(process.argv[3] ?? 500);
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

const TYPES = ['text/html; charset=utf-8', 'text/javascript; charset=utf-8', 'text/css; charset=utf-8', 'image/png', 'image/svg+xml'];
/** A fresh copy of a string (pg gives each row its own). */
const fresh = (s: string) => Buffer.from(s).toString();

function rows(d: number): ManifestEntry[] {
  return Array.from({ length: filesPer }, (_, i) => {
    const sha256 = createHash('sha256').update(`${d}/${i}`).digest('hex');
    const path = i === 0 ? 'index.html' : `assets/chunk-${i}.${sha256.slice(0, 8)}.js`;
    return { path: fresh(path), sha256: fresh(sha256), size: 1000 + i, contentType: fresh(TYPES[i % TYPES.length]) };
  });
}

function heap(): number {
  gc!();
  gc!();
  return process.memoryUsage().heapUsed + process.memoryUsage().arrayBuffers;
}

/** What the built structures hold, input strings they still share included (the inputs' bytes are added back once freed). */
function measureHeld(name: string, build: (entries: ManifestEntry[]) => unknown): void {
  let baseline = 0;
  const kept = (() => {
    const inputs = Array.from({ length: deployments }, (_, d) => rows(d));
    baseline = heap();
    return inputs.map((entries) => build(entries));
  })();
  const after = heap();
  // `baseline` included the inputs, which are gone by `after`: add them back by measuring them alone.
  const inputsBytes = (() => {
    const b = heap();
    const held = Array.from({ length: deployments }, (_, d) => rows(d));
    const a = heap();
    return held.length > 0 ? a - b : 0;
  })();
  const perFile = (after - baseline + inputsBytes) / (filesPer * deployments);
  console.log(`${name.padEnd(34)} ${perFile.toFixed(1)} B/file (${kept.length} deployments × ${filesPer} files)`);
}

measureHeld('Map<string, SiteFile> (before)', (entries) => {
  const map = new Map<string, object>();
  for (const e of entries) map.set(e.path, { path: e.path, sha256: e.sha256, size: e.size, contentType: e.contentType, etag: `"${e.sha256}"` });
  return map;
});
measureHeld('PackedManifest (after)', (entries) => PackedManifest.from(entries));
const sample = PackedManifest.from(rows(0));
console.log(`${'PackedManifest.bytes (estimate)'.padEnd(34)} ${(sample.bytes / filesPer).toFixed(1)} B/file`);
