import { declareErrors } from '../common/errors';

export const storageError = declareErrors('storage', {
  storage_unavailable: 503,
});
export type StorageErrorCode = keyof typeof storageError.codes;
