import { declareErrors } from '../common/errors';

export const blobsError = declareErrors('blobs', {
  invalid_sha256: 400,
  sha256_mismatch: 400,
});
export type BlobsErrorCode = keyof typeof blobsError.codes;
