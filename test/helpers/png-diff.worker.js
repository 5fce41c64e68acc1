'use strict';
/**
 * Decodes two PNGs and counts the pixels that differ (pixelmatch), in a worker thread.
 *
 * Why a thread: jest runs a test file's modules in a `vm` context, where every global a
 * function reads (pngjs's Paeth predictor calls `Math.abs` three times per byte) goes
 * through the context's interceptors. Decoding one 1280 × 800 screenshot took 0.6–0.9 s
 * there and 25 ms in plain Node; the visual suite spent 100 of its 200 s decoding. A
 * worker thread is plain Node.
 *
 * Plain JavaScript: the thread is outside jest, so nothing transforms it.
 */
const { readFile } = require('node:fs/promises');
const { parentPort } = require('node:worker_threads');

const { PNG } = require('pngjs');

/** pixelmatch 7 is ESM only: imported once, on the first comparison. */
let pixelmatch;

/**
 * @param {{ reference: string, actual: Uint8Array, threshold: number, maxShare: number }} job
 * @returns {Promise<{ size?: string, referenceSize?: string, differing?: number, share?: number, diff?: Uint8Array }>}
 */
async function compare({ reference, actual, threshold, maxShare }) {
  pixelmatch ??= (await import('pixelmatch')).default;
  const want = PNG.sync.read(await readFile(reference));
  const got = PNG.sync.read(Buffer.from(actual.buffer, actual.byteOffset, actual.byteLength));
  if (want.width !== got.width || want.height !== got.height) {
    return { size: `${got.width}×${got.height}`, referenceSize: `${want.width}×${want.height}` };
  }
  const diff = new PNG({ width: want.width, height: want.height });
  const differing = pixelmatch(want.data, got.data, diff.data, want.width, want.height, { threshold });
  const share = differing / (want.width * want.height);
  // The diff image is only wanted to look at a failure: encoding it costs as much as a decode.
  return { differing, share, diff: share > maxShare ? PNG.sync.write(diff) : undefined };
}

parentPort.on('message', ({ id, job }) => {
  compare(job).then(
    (result) => parentPort.postMessage({ id, result }),
    (err) => parentPort.postMessage({ id, error: err instanceof Error ? err.message : String(err) }),
  );
});
