import pRetry from 'p-retry';

export interface RetryPolicy {
  /** Attempts after the first. */
  retries: number;
  minTimeoutMs: number;
  maxTimeoutMs: number;
}

/** About 0.5 + 1 + 2 s of waiting at most (randomised): a forge call never holds a build's end for long. */
export const DEFAULT_RETRY: RetryPolicy = { retries: 3, minTimeoutMs: 500, maxTimeoutMs: 4000 };

type ErrorLike = { name?: unknown; message?: unknown; status?: unknown; code?: unknown; response?: unknown; cause?: unknown };

/** An error and its causes, outermost first (fetch hides why in `cause`, Octokit and Gitbeaker wrap again). */
export function causes(err: unknown): ErrorLike[] {
  const out: ErrorLike[] = [];
  for (let e = err as ErrorLike | undefined; e && typeof e === 'object' && out.length < 6; e = e.cause as ErrorLike | undefined) out.push(e);
  return out;
}

/**
 * The HTTP status the forge answered, if it answered: Octokit's RequestError.status,
 * Gitbeaker's cause.response.status, ours. Octokit reports "no answer" as a status 500
 * without a response: that is no status.
 */
export function statusOf(err: unknown): number | undefined {
  for (const e of causes(err)) {
    if (typeof e.status === 'number' && !(e.name === 'HttpError' && e.response === undefined)) return e.status;
    const response = (e.cause as { response?: { status?: unknown } } | undefined)?.response;
    if (typeof response?.status === 'number') return response.status;
  }
  return undefined;
}

/** The address policy's refusal (outbound.ts), wherever it sits in the chain. */
export function policyRefusal(err: unknown): Error | undefined {
  return causes(err).find((e) => e.code === 'ADDRESS_NOT_ALLOWED') as Error | undefined;
}

/**
 * Worth another try: a 5xx, a 429, or no answer at all (connection refused or reset, a
 * timeout). A 4xx will answer the same again, and an address the policy refuses stays refused.
 */
export function isRetryable(err: unknown): boolean {
  if (policyRefusal(err)) return false;
  const status = statusOf(err);
  return status === undefined || status >= 500 || status === 429;
}

export function withRetries<T>(call: () => Promise<T>, policy: RetryPolicy): Promise<T> {
  return pRetry(
    async () => {
      try {
        return await call();
      } catch (err) {
        // fetch's TypeError can come from another realm (jest's sandbox, a worker): p-retry
        // only retries what is `instanceof Error` here, so wrap anything else.
        if (err instanceof Error) throw err;
        throw new Error(String((err as ErrorLike | undefined)?.message ?? err), { cause: err });
      }
    },
    {
      retries: policy.retries,
      minTimeout: policy.minTimeoutMs,
      maxTimeout: policy.maxTimeoutMs,
      factor: 2,
      randomize: true,
      shouldRetry: ({ error }) => isRetryable(error),
    },
  );
}
