/**
 * Pure helpers of the builds pages (unit-tested in builds.spec.ts): what they compute
 * from a build record, and reading a build's log as it streams.
 */

export const BUILD_STATUSES = ['queued', 'running', 'ready', 'failed', 'canceled', 'timed_out'] as const;
export type BuildStatus = (typeof BUILD_STATUSES)[number];

/** A build that may still change: the list polls and the build page follows its log while one is. */
export function isActive(status: string): boolean {
  return status === 'queued' || status === 'running';
}

/** How the status reads on its badge (`timed_out` → `timed out`). */
export function statusLabel(status: string): string {
  return status.replace(/_/g, ' ');
}

/** The first 7 characters of a commit, as forges show it; a dash before the ref is resolved. */
export function shortSha(sha: string | null | undefined): string {
  return sha ? sha.slice(0, 7) : '—';
}

/** The first line of a commit message (the rest is the body). */
export function commitTitle(message: string | null | undefined): string {
  return message ? message.split('\n', 1)[0].trim() : '';
}

/** A build's duration as people say it: `850 ms`, `42 s`, `3 min 05 s`, `1 h 02 min`; a dash when there is none. */
export function formatDuration(ms: number | null | undefined): string {
  if (ms === null || ms === undefined || !Number.isFinite(ms) || ms < 0) return '—';
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const two = (n: number) => String(n).padStart(2, '0');
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${two(s % 60)} s`;
  return `${Math.floor(m / 60)} h ${two(m % 60)} min`;
}

/**
 * Reads a streamed answer's body as text, handing each decoded piece to `onText` as it
 * arrives (a multi-byte character split across chunks is decoded once whole). Resolves
 * when the server ends the answer; rejects with an AbortError when `signal` aborts.
 */
export async function readTextStream(body: ReadableStream<Uint8Array>, onText: (text: string) => void, signal?: AbortSignal): Promise<void> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  const abort = () => void reader.cancel().catch(() => undefined);
  signal?.addEventListener('abort', abort, { once: true });
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (signal?.aborted) throw new DOMException('The log stream was closed', 'AbortError');
      if (done) break;
      const text = decoder.decode(value, { stream: true });
      if (text) onText(text);
    }
    const rest = decoder.decode();
    if (rest) onText(rest);
  } finally {
    signal?.removeEventListener('abort', abort);
    reader.releaseLock();
  }
}

/** What started a build, as the pages say it: `manual`, `push`, `pull request #12`. */
export function triggerLabel(build: { trigger: string; pullRequest: number | null }): string {
  if (build.trigger === 'pull_request') return build.pullRequest !== null ? `pull request #${build.pullRequest}` : 'pull request';
  return build.trigger.replace(/_/g, ' ');
}

/**
 * What became of the build's commit status on the forge (null: the project has no access
 * token, nothing was posted): `posted`, `posting…`, or why it could not be posted.
 */
export function forgeStatusLabel(build: { forgeStatus?: string | null; forgeError?: string | null }): string | null {
  switch (build.forgeStatus) {
    case 'posted':
      return 'posted to the forge';
    case 'pending':
      return 'posting to the forge…';
    case 'failed':
      return build.forgeError ? `could not be posted: ${build.forgeError}` : 'could not be posted';
    default:
      return null;
  }
}
