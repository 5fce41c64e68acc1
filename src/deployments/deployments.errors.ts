import { declareErrors } from '../common/errors';

export const deploymentsError = declareErrors('deployments', {
  invalid_file: 400,
  invalid_path: 400,
  invalid_content: 400,
  blob_size_mismatch: 400,
  missing_blobs: 400,
  invalid_redirects: 400,
  invalid_headers: 400,
  project_deleted: 409,
  deployment_expired: 409,
  storage_busy: 503,
});
export type DeploymentsErrorCode = keyof typeof deploymentsError.codes;
