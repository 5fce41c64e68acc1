import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';

import type { ResponseBody, StatichostClient } from './client';
import { DEPLOY_ROUNDS, INLINE_BYTES, type ManifestEntry, pickInline } from './digest-protocol';
import { StatichostApiError } from './errors';
import { type LocalFile, mapLimit } from './files';

export type LazyDeployment = ResponseBody<'/v1/deployments', 'post', 201>;
export type DeployPreflight = ResponseBody<'/v1/deployments/preflight', 'post', 200>;

export interface DeployProgress {
  /** `uploading`: sending the blobs the service lacks; `deploying`: sending the manifest. */
  phase: 'deploying' | 'uploading';
  /** Bytes uploaded so far, of `bytesTotal` to upload. */
  bytesDone: number;
  bytesTotal: number;
  filesDone: number;
  filesTotal: number;
}

export interface DigestDeployOptions {
  /** The project's slug; an unknown slug creates the project (lazy deploy). */
  project: string;
  ttl?: string;
  /**
   * false: a preview. The deployment is served at its own address only (the result's
   * `url`), the project's live site does not change, and promote makes it live later.
   * Default true.
   */
  publish?: boolean;
  files: LocalFile[];
  /** Uploads at a time. */
  concurrency?: number;
  /**
   * Missing files up to 64 KB travel inside the repeated manifest (base64), up to
   * this many bytes in all, instead of one PUT each: a request per small file costs
   * more than its bytes. 0 sends every missing file with PUT /v1/blobs. Default 8 MiB.
   */
  inlineBytes?: number;
  onProgress?: (progress: DeployProgress) => void;
  /**
   * Before uploading anything, ask POST /v1/deployments/preflight whether the deploy
   * would be accepted (slug, plan limits: projects, deploys this month, storage, file
   * size), so a refused deploy uploads nothing. Default true; a service without the
   * route (404) is deployed to as before.
   */
  preflight?: boolean;
  /** Once per round the service asked for bytes: how many files (and bytes) it lacked, and how they will travel. */
  onMissing?: (missing: MissingSummary) => void;
}

export interface MissingSummary {
  files: number;
  bytes: number;
  /** Sent base64 inside the repeated manifest. */
  inline: number;
  /** Sent with PUT /v1/blobs/:sha256. */
  put: number;
}

export interface DigestDeployResult {
  deployment: LazyDeployment;
  /** Files the deploy named, and how many of their blobs had to be uploaded. */
  files: number;
  uploadedFiles: number;
  uploadedBytes: number;
}

/**
 * POST /v1/deployments/preflight: the service's answer to "would this deploy be
 * accepted now?" without deploying (throws the error the deploy would give).
 */
export async function preflightDeploy(
  client: StatichostClient,
  options: Pick<DigestDeployOptions, 'project' | 'ttl' | 'publish' | 'files'>,
): Promise<DeployPreflight> {
  return client.call(
    client.api.POST('/v1/deployments/preflight', {
      body: {
        project_slug: options.project,
        type: 'static_file',
        files: options.files.map((f) => ({ path: f.path, sha256: f.sha256, size: f.size })),
        ...(options.ttl ? { ttl: options.ttl } : {}),
        ...(options.publish === false ? { publish: false } : {}),
      },
    }),
  );
}

/**
 * Deploys local files digest first: the manifest ({path, sha256, size}) goes
 * first; the service answers 400 `missing_blobs` with the hashes it does not
 * have for this workspace; those alone are sent (large ones streamed with
 * PUT /v1/blobs/:sha256, small ones inline in the repeated manifest) and the
 * manifest is sent again. Unchanged files are never re-sent. Before the first byte
 * is sent, a preflight asks whether the deploy would be accepted at all.
 */
export async function deployDigestFirst(client: StatichostClient, options: DigestDeployOptions): Promise<DigestDeployResult> {
  let manifest: ManifestEntry[] = options.files.map((f) => ({ path: f.path, sha256: f.sha256, size: f.size }));
  const bySha = new Map(options.files.map((f) => [f.sha256, f]));
  let uploadedFiles = 0;
  let uploadedBytes = 0;
  for (let round = 1; ; round++) {
    options.onProgress?.({ phase: 'deploying', bytesDone: uploadedBytes, bytesTotal: uploadedBytes, filesDone: uploadedFiles, filesTotal: uploadedFiles });
    try {
      const deployment = await client.call(
        client.api.POST('/v1/deployments', {
          body: {
            project_slug: options.project,
            type: 'static_file',
            files: manifest,
            ...(options.ttl ? { ttl: options.ttl } : {}),
            ...(options.publish === false ? { publish: false } : {}),
          },
        }),
      );
      return { deployment, files: manifest.length, uploadedFiles, uploadedBytes };
    } catch (err) {
      if (!(err instanceof StatichostApiError) || err.code !== 'missing_blobs' || round >= DEPLOY_ROUNDS) throw err;
      const needed = (err.body.missing as string[]).map((sha) => bySha.get(sha)).filter((f): f is LocalFile => f !== undefined);
      if (needed.length === 0) throw err;
      // Bytes are about to leave: first make sure the deploy can succeed at all.
      if (round === 1 && options.preflight !== false) {
        await preflightDeploy(client, options).catch((preflightError: unknown) => {
          // An older service without the route: deploy as before.
          if (preflightError instanceof StatichostApiError && (preflightError.status === 404 || preflightError.status === 405)) return;
          throw preflightError;
        });
      }
      // Small files go inline in the next manifest (one entry per hash carries the bytes).
      const inline = pickInline(needed, options.inlineBytes ?? INLINE_BYTES);
      if (inline.size > 0) {
        const contents = new Map<string, string>();
        await mapLimit([...inline], 8, async (sha) => void contents.set(sha, (await readFile(bySha.get(sha)!.absolutePath)).toString('base64')));
        manifest = manifest.map((entry) => {
          if (!('sha256' in entry) || !contents.has(entry.sha256)) return entry;
          const content = contents.get(entry.sha256)!;
          contents.delete(entry.sha256);
          return { path: entry.path, content, encoding: 'base64' };
        });
        uploadedFiles += inline.size;
        uploadedBytes += needed.filter((f) => inline.has(f.sha256)).reduce((n, f) => n + f.size, 0);
      }
      const missing = needed.filter((f) => !inline.has(f.sha256));
      const bytesTotal = missing.reduce((n, f) => n + f.size, 0);
      options.onMissing?.({ files: needed.length, bytes: needed.reduce((n, f) => n + f.size, 0), inline: inline.size, put: missing.length });
      const progress: DeployProgress = { phase: 'uploading', bytesDone: 0, bytesTotal, filesDone: 0, filesTotal: missing.length };
      options.onProgress?.({ ...progress });
      await mapLimit(missing, options.concurrency ?? 6, async (file) => {
        let sent = 0;
        await client.uploadBlob(
          file.sha256,
          () => createReadStream(file.absolutePath),
          file.size,
          (n) => {
            sent += n;
            progress.bytesDone += n;
            options.onProgress?.({ ...progress });
          },
        );
        // The service may answer before reading everything (it already had the blob).
        progress.bytesDone += file.size - sent;
        progress.filesDone++;
        options.onProgress?.({ ...progress });
      }).catch((uploadError: unknown) => {
        if (uploadError instanceof StatichostApiError && uploadError.code === 'sha256_mismatch') {
          throw new Error(`A file changed while it was being deployed; run the deploy again (${uploadError.message})`, { cause: uploadError });
        }
        throw uploadError;
      });
      uploadedFiles += missing.length;
      uploadedBytes += bytesTotal;
    }
  }
}
