import { type ChildProcess, fork } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface S3TestServer {
  /** e.g. http://127.0.0.1:41234 */
  endpoint: string;
  port: number;
  /** Created before start (see `buckets` to create more). */
  bucket: string;
  region: string;
  /** Random for each server; s3rver refuses any other key. */
  accessKeyId: string;
  secretAccessKey: string;
  /** Where s3rver keeps its buckets (one subdirectory each); removed by stop(). */
  directory: string;
  /** STORAGE_DRIVER=s3 and the S3_* variables, ready for `startTestApp({ env })`. */
  env: Record<string, string>;
  /** Stops the server and removes its directory (all objects). Safe to call twice. */
  stop(): Promise<void>;
}

export interface S3TestServerOptions {
  /** Name of the main bucket (default: a random `test-...` name). */
  bucket?: string;
  /** More buckets to create. */
  buckets?: string[];
}

const SCRIPT = join(__dirname, 's3-server.js');
const START_TIMEOUT_MS = 15_000;

/**
 * A real S3 protocol server (s3rver) on 127.0.0.1 and a random free port, with its
 * objects in a temp directory and a bucket created.
 *
 * It runs in a child process, for two reasons: s3rver paginates ListObjectsV2 with
 * DES-encrypted continuation tokens, which Node 17+ (OpenSSL 3) only allows with
 * `--openssl-legacy-provider` (a process-wide flag the test process itself should not
 * need); and the test process stays free of s3rver's Koa/winston globals. The child
 * exits when this process disconnects, even if a test run is killed.
 */
export async function startS3Server(options: S3TestServerOptions = {}): Promise<S3TestServer> {
  const bucket = options.bucket ?? `test-${randomBytes(6).toString('hex')}`;
  const accessKeyId = `AKIA${randomBytes(8).toString('hex').toUpperCase()}`;
  const secretAccessKey = randomBytes(30).toString('base64url');
  const region = 'us-east-1';
  const directory = await mkdtemp(join(tmpdir(), 'statichost-test-s3-'));

  // The child must not inherit the parent's NODE_OPTIONS/execArgv (jest's or a debugger's):
  // it gets exactly the flag s3rver needs.
  const env = { ...process.env };
  delete env.NODE_OPTIONS;
  let child: ChildProcess;
  try {
    child = fork(SCRIPT, [], {
      execArgv: ['--openssl-legacy-provider'],
      env,
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'json',
    });
  } catch (err) {
    await rm(directory, { recursive: true, force: true });
    throw err;
  }
  let stderr = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    stderr = (stderr + chunk).slice(-4000);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));

  let stopped = false;
  const stop = async (): Promise<void> => {
    if (stopped) return;
    stopped = true;
    if (child.exitCode === null && child.signalCode === null) {
      if (child.connected) child.disconnect();
      const kill = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(kill);
    }
    await rm(directory, { recursive: true, force: true });
  };

  try {
    const port = await new Promise<number>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`s3rver did not start within ${START_TIMEOUT_MS} ms\n${stderr}`)), START_TIMEOUT_MS);
      child.once('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`s3rver exited before it was ready (code ${code}, signal ${signal})\n${stderr}`));
      });
      child.once('message', (msg: { type: string; port?: number; message?: string }) => {
        clearTimeout(timer);
        if (msg.type === 'ready' && msg.port) resolve(msg.port);
        else reject(new Error(`s3rver failed to start: ${msg.message ?? JSON.stringify(msg)}`));
      });
      child.send({ type: 'start', directory, buckets: [bucket, ...(options.buckets ?? [])], accessKeyId, secretAccessKey });
    });
    // A forgotten stop() must not keep jest alive: when this process exits, the channel
    // closes and the child exits by itself.
    child.unref();
    child.channel?.unref();
    (child.stderr as unknown as { unref?(): void } | null)?.unref?.();
    const endpoint = `http://127.0.0.1:${port}`;
    return {
      endpoint,
      port,
      bucket,
      region,
      accessKeyId,
      secretAccessKey,
      directory,
      env: {
        STORAGE_DRIVER: 's3',
        S3_ENDPOINT: endpoint,
        S3_BUCKET: bucket,
        S3_REGION: region,
        S3_ACCESS_KEY_ID: accessKeyId,
        S3_SECRET_ACCESS_KEY: secretAccessKey,
        S3_FORCE_PATH_STYLE: 'true',
      },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
