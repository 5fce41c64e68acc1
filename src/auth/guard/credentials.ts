import { type ApiError, unauthorized } from '../../common/errors';

/** RFC 6750: a 401 names the scheme to use. The exception filter copies `headers` onto the response. */
export function withBearerChallenge(error: ApiError): ApiError {
  return Object.assign(error, { headers: { 'WWW-Authenticate': 'Bearer realm="statichost"' } });
}

/**
 * The one answer for every credential that does not work (missing, malformed,
 * expired, revoked, unknown): it never says which, so it cannot be used to probe.
 */
export function invalidCredentials(): ApiError {
  return withBearerChallenge(unauthorized());
}
