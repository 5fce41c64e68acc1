import type { DocumentedErrors } from '../openapi/endpoint';

/** The domain errors of a deploy, documented on every route that deploys or checks a deploy. */
export const DEPLOY_ERRORS: DocumentedErrors = {
  400: [
    'invalid_file',
    'invalid_path',
    'invalid_content',
    'blob_size_mismatch',
    'missing_blobs',
    'invalid_redirects',
    'invalid_headers',
    'invalid_idempotency_key',
  ],
  402: ['quota_exceeded'],
  403: ['forbidden'],
  409: ['project_deleted', 'idempotency_key_in_progress'],
  413: ['payload_too_large'],
  422: ['idempotency_key_reused'],
  503: ['storage_unavailable', 'storage_busy'],
};

/** A deploy that names its project by slug (POST /v1/deployments and its preflight) may also create it. */
export const LAZY_DEPLOY_ERRORS: DocumentedErrors = {
  ...DEPLOY_ERRORS,
  400: [...DEPLOY_ERRORS[400]!, 'invalid_slug'],
  409: [...DEPLOY_ERRORS[409]!, 'slug_taken'],
};
