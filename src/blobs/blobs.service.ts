import type { Readable } from 'node:stream';

import { Injectable, Logger } from '@nestjs/common';

import { formatBytes } from '../../packages/shared/format-bytes';
import { ApiError, payloadTooLarge } from '../common/errors';
import { AppConfig } from '../config/app-config';
import { QuotaService } from '../quotas/quota.service';
import { type Principal, workspaceOf } from '../shared/principal';
import { storageError } from '../storage/storage.errors';
import { SpooledUpload, spoolUpload, uploadSpoolDir, UploadTooLargeError } from '../storage/upload-spool';
import { BlobStore } from './blob-store.service';
import { blobsError } from './blobs.errors';

export const SHA256_HEX = /^[0-9a-f]{64}$/;

export interface BlobUpload {
  body: AsyncIterable<Buffer | string> & Readable;
  /** The request's Content-Length, when it sent one. */
  contentLength?: number;
}

export interface BlobUploadResult {
  sha256: string;
  size: number;
  /** False when the workspace already owned the blob: nothing was read or stored. */
  created: boolean;
}

/** A path's `:sha256`, lowercased; 400 when it cannot be a SHA-256. */
export function parseSha256(value: string): string {
  const sha256 = value.toLowerCase();
  if (!SHA256_HEX.test(sha256)) {
    throw blobsError('invalid_sha256', `sha256 must be the 64 hexadecimal characters of the file's SHA-256, got ${JSON.stringify(value.slice(0, 80))}`);
  }
  return sha256;
}

/**
 * Digest-first uploads: a client sends each file's bytes once, by hash, and then
 * deploys manifests that name hashes only. The bytes are checked against the hash
 * before anything is stored under it.
 */
@Injectable()
export class BlobsService {
  private readonly logger = new Logger(BlobsService.name);

  constructor(
    private readonly blobs: BlobStore,
    private readonly config: AppConfig,
    private readonly quotas: QuotaService,
  ) {}

  /** The largest upload the workspace's plan allows: the same limit as an inline file (never above MAX_FILE_BYTES). */
  async maxFileBytes(workspaceId: string): Promise<number> {
    return (await this.quotas.planOf(workspaceId)).limits.maxFileBytes;
  }

  async upload(principal: Principal, sha256Param: string, upload: BlobUpload): Promise<BlobUploadResult> {
    const workspaceId = workspaceOf(principal);
    const sha256 = parseSha256(sha256Param);
    const limit = await this.maxFileBytes(workspaceId);
    if (upload.contentLength !== undefined && upload.contentLength > limit) throw this.tooLarge(sha256, upload.contentLength, limit);

    // Already the workspace's: answer at once, without reading (or re-storing) the bytes.
    const owned = await this.blobs.claimOwned(workspaceId, [sha256]);
    if (owned.has(sha256)) return { sha256, size: owned.get(sha256)!, created: false };

    let spooled: SpooledUpload;
    try {
      spooled = await spoolUpload(upload.body, { maxBytes: limit, dir: uploadSpoolDir(this.config.DATA_DIR) });
    } catch (err) {
      if (err instanceof UploadTooLargeError) throw this.tooLarge(sha256, undefined, limit);
      throw err;
    }
    try {
      if (spooled.sha256 !== sha256) {
        throw blobsError(
          'sha256_mismatch',
          `The body's SHA-256 is ${spooled.sha256} (${formatBytes(spooled.size)}), not the ${sha256} named in the path; nothing was stored`,
          {
            expected: sha256,
            actual: spooled.sha256,
            size: spooled.size,
          },
        );
      }
      try {
        await this.blobs.storeUpload(workspaceId, { sha256, size: spooled.size }, spooled.open);
      } catch (err) {
        this.logger.error(`storing blob ${sha256} failed: ${(err as Error).message}`, (err as Error).stack);
        throw storageError('storage_unavailable', 'Object storage failed while storing the blob; retry the upload.');
      }
      return { sha256, size: spooled.size, created: true };
    } finally {
      await spooled.dispose();
    }
  }

  private tooLarge(sha256: string, size: number | undefined, limit: number): ApiError {
    const message =
      size === undefined
        ? `Blob ${sha256} is larger than the largest file allowed, ${formatBytes(limit)}; nothing was stored`
        : `Blob ${sha256} is ${formatBytes(size)}; the largest file allowed is ${formatBytes(limit)}`;
    return payloadTooLarge(message, { limit, ...(size === undefined ? {} : { size }) });
  }
}
