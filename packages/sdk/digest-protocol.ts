/**
 * The digest-first deploy's client-side rules, shared by the SDK (packages/sdk/deploy.ts, the
 * CLI) and the dashboard (web/src/deploy.ts): nothing here touches Node or the DOM.
 */

import { mapLimit } from '../shared/map-limit';

// Shared with the builder's output upload (packages/shared).
export { mapLimit };

/** Upload rounds before giving up (a blob is collected between upload and deploy only after the grace period). */
export const DEPLOY_ROUNDS = 3;
/** Files up to this size may ride inline in the repeated manifest instead of a PUT each. */
export const INLINE_MAX_FILE = 64 * 1024;
/** How many bytes of a manifest may be inline files. */
export const INLINE_BYTES = 8 * 1024 * 1024;

export type ManifestEntry = { path: string; sha256: string; size: number } | { path: string; content: string; encoding: 'base64' };

/** Which missing files ride inline: small ones, first come, within the byte budget. */
export function pickInline(missing: { sha256: string; size: number }[], budget: number): Set<string> {
  const inline = new Set<string>();
  if (budget <= 0) return inline;
  let used = 0;
  for (const f of missing) {
    if (inline.has(f.sha256) || f.size > INLINE_MAX_FILE || used + f.size > budget) continue;
    inline.add(f.sha256);
    used += f.size;
  }
  return inline;
}

/** A file of a digest-first deploy, wherever its bytes are (a path on disk, a browser File). */
export interface DigestFile {
  path: string;
  sha256: string;
  size: number;
}

/**
 * How one client sends a digest-first deploy: the rounds below are the same for the CLI
 * (Node: files on disk, streamed PUTs) and the dashboard (a browser: File objects, XHR
 * for upload progress), so what differs is passed in, and the loop is written once.
 */
export interface DigestDeploySteps<F extends DigestFile, D> {
  /** Sends the manifest; resolves with the deployment, or throws what `missingOf` reads. */
  send(manifest: ManifestEntry[]): Promise<D>;
  /** The hashes a `missing_blobs` refusal names; undefined for any other error (thrown on as it is). */
  missingOf(error: unknown): string[] | undefined;
  /** Once, after the first refusal and before any byte leaves (the SDK's preflight). */
  beforeUpload?(): Promise<void>;
  /** The base64 of a file that rides inline. */
  base64(file: F): Promise<string>;
  /** PUT /v1/blobs/:sha256 of one file; `onBytes` as bytes leave (negative when an upload starts over). */
  upload(file: F, onBytes: (n: number) => void): Promise<void>;
  /** Bytes of inline files a manifest may carry. */
  inlineBytes: number;
  /** Uploads at a time. */
  concurrency: number;
  /** Before each manifest is sent: the files and bytes uploaded so far. */
  onRound?(round: number, uploaded: { files: number; bytes: number }): void;
  /** The service lacks `needed`: `inline` ride in the next manifest (already read), `put` are about to be uploaded. */
  onMissing?(needed: F[], inline: Set<string>, put: F[]): void;
  onBytes?(n: number): void;
  /** A PUT finished; `unreported`: its bytes not reported by onBytes (the service may answer before reading them all). */
  onFileSent?(file: F, unreported: number): void;
}

/**
 * Deploys `files` digest first: the manifest ({path, sha256, size}) goes first; the
 * service answers 400 `missing_blobs` with the hashes it does not have for this
 * workspace; those alone are sent (small ones inline in the repeated manifest, the rest
 * with PUT /v1/blobs/:sha256) and the manifest is sent again, up to DEPLOY_ROUNDS times.
 */
export async function runDigestDeploy<F extends DigestFile, D>(
  files: F[],
  steps: DigestDeploySteps<F, D>,
): Promise<{ deployment: D; files: number; uploadedFiles: number; uploadedBytes: number }> {
  let manifest: ManifestEntry[] = files.map((f) => ({ path: f.path, sha256: f.sha256, size: f.size }));
  const bySha = new Map(files.map((f) => [f.sha256, f]));
  let uploadedFiles = 0;
  let uploadedBytes = 0;
  for (let round = 1; ; round++) {
    steps.onRound?.(round, { files: uploadedFiles, bytes: uploadedBytes });
    try {
      const deployment = await steps.send(manifest);
      return { deployment, files: manifest.length, uploadedFiles, uploadedBytes };
    } catch (err) {
      const missing = steps.missingOf(err);
      if (missing === undefined || round >= DEPLOY_ROUNDS) throw err;
      const needed = missing.map((sha) => bySha.get(sha)).filter((f): f is F => f !== undefined);
      if (needed.length === 0) throw err;
      // Bytes are about to leave: first make sure the deploy can succeed at all.
      if (round === 1) await steps.beforeUpload?.();
      const inline = pickInline(needed, steps.inlineBytes);
      if (inline.size > 0) {
        const contents = new Map<string, string>();
        await mapLimit([...inline], 8, async (sha) => void contents.set(sha, await steps.base64(bySha.get(sha)!)));
        manifest = manifest.map((entry) => {
          if (!('sha256' in entry) || !contents.has(entry.sha256)) return entry;
          const content = contents.get(entry.sha256)!;
          contents.delete(entry.sha256);
          return { path: entry.path, content, encoding: 'base64' };
        });
      }
      const put = needed.filter((f) => !inline.has(f.sha256));
      steps.onMissing?.(needed, inline, put);
      await mapLimit(put, steps.concurrency, async (file) => {
        let sent = 0;
        await steps.upload(file, (n) => {
          sent += n;
          steps.onBytes?.(n);
        });
        steps.onFileSent?.(file, file.size - sent);
      });
      uploadedFiles += needed.length;
      uploadedBytes += needed.reduce((n, f) => n + f.size, 0);
    }
  }
}
