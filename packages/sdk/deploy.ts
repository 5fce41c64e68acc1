import { createReadStream } from 'node:fs';
import { readFile } from 'node:fs/promises';

import type { ResponseBody, StatichostClient } from './client';
import { INLINE_BYTES, runDigestDeploy } from './digest-protocol';
import { StatichostApiError } from './errors';
import type { LocalFile } from './files';

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
  let progress: DeployProgress = { phase: 'uploading', bytesDone: 0, bytesTotal: 0, filesDone: 0, filesTotal: 0 };
  return runDigestDeploy(options.files, {
    inlineBytes: options.inlineBytes ?? INLINE_BYTES,
    concurrency: options.concurrency ?? 6,
    send: (manifest) =>
      client.call(
        client.api.POST('/v1/deployments', {
          body: {
            project_slug: options.project,
            type: 'static_file',
            files: manifest,
            ...(options.ttl ? { ttl: options.ttl } : {}),
            ...(options.publish === false ? { publish: false } : {}),
          },
        }),
      ),
    missingOf: (err) => (err instanceof StatichostApiError && err.code === 'missing_blobs' ? (err.body.missing as string[]) : undefined),
    beforeUpload:
      options.preflight === false
        ? undefined
        : () =>
            preflightDeploy(client, options).then(
              () => undefined,
              (preflightError: unknown) => {
                // An older service without the route: deploy as before.
                if (preflightError instanceof StatichostApiError && (preflightError.status === 404 || preflightError.status === 405)) return;
                throw preflightError;
              },
            ),
    base64: async (file) => (await readFile(file.absolutePath)).toString('base64'),
    upload: async (file, onBytes) => {
      try {
        await client.uploadBlob(file.sha256, () => createReadStream(file.absolutePath), file.size, onBytes);
      } catch (uploadError) {
        if (uploadError instanceof StatichostApiError && uploadError.code === 'sha256_mismatch') {
          throw new Error(`A file changed while it was being deployed; run the deploy again (${uploadError.message})`, { cause: uploadError });
        }
        throw uploadError;
      }
    },
    onRound: (_round, uploaded) =>
      options.onProgress?.({
        phase: 'deploying',
        bytesDone: uploaded.bytes,
        bytesTotal: uploaded.bytes,
        filesDone: uploaded.files,
        filesTotal: uploaded.files,
      }),
    onMissing: (needed, inline, put) => {
      const bytesTotal = put.reduce((n, f) => n + f.size, 0);
      options.onMissing?.({ files: needed.length, bytes: needed.reduce((n, f) => n + f.size, 0), inline: inline.size, put: put.length });
      progress = { phase: 'uploading', bytesDone: 0, bytesTotal, filesDone: 0, filesTotal: put.length };
      options.onProgress?.({ ...progress });
    },
    onBytes: (n) => {
      progress.bytesDone += n;
      options.onProgress?.({ ...progress });
    },
    onFileSent: (_file, unreported) => {
      progress.bytesDone += unreported;
      progress.filesDone++;
      options.onProgress?.({ ...progress });
    },
  });
}
