import { Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';

import type { ResponseBody, StatichostClient } from './client';
import { StatichostApiError } from './errors';

/** A build record (`GET /projects/{projectId}/builds/{buildId}`). */
export type Build = ResponseBody<'/projects/{projectId}/builds/{buildId}', 'get'>;
export type BuildStatus = Build['status'];

/** The statuses a build never leaves. */
export const FINISHED_BUILD_STATUSES: readonly BuildStatus[] = ['ready', 'failed', 'canceled', 'timed_out'];

export function isBuildFinished(status: BuildStatus): boolean {
  return FINISHED_BUILD_STATUSES.includes(status);
}

export function getBuild(client: StatichostClient, projectId: string, buildId: string): Promise<Build> {
  return client.call(client.api.GET('/projects/{projectId}/builds/{buildId}', { params: { path: { projectId, buildId } } }));
}

/** `GET …/builds/{buildId}/logs`: the log so far, one `<ISO time> [<phase>] <text>` line per line. */
export async function readBuildLog(client: StatichostClient, projectId: string, buildId: string): Promise<string> {
  const text = await client.call(client.api.GET('/projects/{projectId}/builds/{buildId}/logs', { params: { path: { projectId, buildId } }, parseAs: 'text' }));
  return text as unknown as string;
}

export interface FollowBuildLogsOptions {
  /** Stops following (the build goes on); the promise rejects with the signal's reason. */
  signal?: AbortSignal;
  /**
   * Connections that may end (or break) before the build does, in a row, before giving up.
   * A proxy's idle timeout or a restarted server ends a long stream; each new connection
   * skips what was already shown. Default 5.
   */
  reconnects?: number;
  /** Wait before reconnecting, in ms (doubles each time). Default 500. */
  retryDelayMs?: number;
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal?.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason as Error);
      },
      { once: true },
    );
  });

/**
 * Streams a build's log (`GET …/logs?follow=1`, chunked `text/plain`) to `onText` as
 * it arrives, from its first line, and resolves with the build once it has ended
 * (`ready`, `failed`, `canceled` or `timed_out`: check `status`). No polling: the
 * service ends the answer when the build ends. A connection that ends early is
 * opened again and the bytes already given to `onText` are skipped (the log only grows).
 */
export async function followBuildLogs(
  client: StatichostClient,
  projectId: string,
  buildId: string,
  onText: (text: string) => void,
  options: FollowBuildLogsOptions = {},
): Promise<Build> {
  const { signal } = options;
  const reconnects = options.reconnects ?? 5;
  let delay = options.retryDelayMs ?? 500;
  const decoder = new TextDecoder();
  let shown = 0;
  let failures = 0;
  for (;;) {
    let skip = shown;
    let lastError: unknown;
    try {
      const stream = await client.call(
        client.api.GET('/projects/{projectId}/builds/{buildId}/logs', {
          params: { path: { projectId, buildId }, query: { follow: '1' } },
          parseAs: 'stream',
          signal,
        }),
      );
      for await (const chunk of Readable.fromWeb(stream as unknown as NodeReadableStream<Uint8Array>) as AsyncIterable<Buffer>) {
        let bytes: Uint8Array = chunk;
        if (skip > 0) {
          const dropped = Math.min(skip, bytes.length);
          bytes = bytes.subarray(dropped);
          skip -= dropped;
        }
        if (bytes.length === 0) continue;
        shown += bytes.length;
        failures = 0;
        const text = decoder.decode(bytes, { stream: true });
        if (text) onText(text);
      }
    } catch (err) {
      // An answer of the service (404, 403…) or the caller's abort is final; a broken connection is not.
      if (err instanceof StatichostApiError || signal?.aborted) throw err;
      lastError = err;
    }
    const build = await getBuild(client, projectId, buildId);
    if (isBuildFinished(build.status)) {
      const rest = decoder.decode();
      if (rest) onText(rest);
      return build;
    }
    if (++failures > reconnects) {
      throw new Error(
        `The log of ${buildId} stopped streaming ${failures} times in a row before the build ended (it is ${build.status})` +
          (lastError instanceof Error ? `: ${lastError.message}` : ''),
        { cause: lastError },
      );
    }
    await sleep(delay, signal);
    delay = Math.min(delay * 2, 10_000);
  }
}

export interface WaitForBuildOptions {
  /** Between two looks at the build, in ms. Default 2000. */
  intervalMs?: number;
  /** Give up (reject) after this many ms; the build goes on. Default: never. */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** Each time the build is read, e.g. to show its status. */
  onStatus?: (build: Build) => void;
}

/**
 * Resolves with the build once it has ended (`ready`, `failed`, `canceled`,
 * `timed_out`), reading its record every `intervalMs`: for scripts that need the
 * outcome, not the log (followBuildLogs streams the log and ends at the same moment).
 */
export async function waitForBuild(client: StatichostClient, projectId: string, buildId: string, options: WaitForBuildOptions = {}): Promise<Build> {
  const interval = options.intervalMs ?? 2000;
  const deadline = options.timeoutMs === undefined ? Infinity : Date.now() + options.timeoutMs;
  for (;;) {
    options.signal?.throwIfAborted();
    const build = await getBuild(client, projectId, buildId);
    options.onStatus?.(build);
    if (isBuildFinished(build.status)) return build;
    if (Date.now() + interval > deadline) {
      throw new Error(`${buildId} has not ended after ${options.timeoutMs} ms (it is ${build.status})`);
    }
    await sleep(interval, options.signal);
  }
}
