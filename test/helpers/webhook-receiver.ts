import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { Webhook as StandardWebhook } from 'standardwebhooks';

export interface ReceivedCall {
  path: string;
  headers: IncomingHttpHeaders;
  raw: string;
}

export interface ReceivedEvent {
  type: string;
  workspaceId: string;
  timestamp: string;
  data: Record<string, unknown>;
}

/** The headers a receiver verifies, as the standardwebhooks package takes them. */
export const signatureHeaders = (h: IncomingHttpHeaders) => ({
  'webhook-id': String(h['webhook-id']),
  'webhook-timestamp': String(h['webhook-timestamp']),
  'webhook-signature': String(h['webhook-signature']),
});

/** What a receiver does with a call: the `standardwebhooks` package's check, throwing on a bad signature. */
export const verifiedEvent = (secret: string, call: ReceivedCall) =>
  new StandardWebhook(secret).verify(call.raw, signatureHeaders(call.headers)) as ReceivedEvent;

/** A webhook receiver on loopback: records every call and answers what each test tells it to. */
export async function startWebhookReceiver() {
  const calls: ReceivedCall[] = [];
  const answers: { status: number; headers?: Record<string, string>; body?: string }[] = [];
  /** While set, answers wait for it (a slow receiver, as long as a test needs). */
  let hold: Promise<void> | null = null;
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      calls.push({ path: req.url ?? '', headers: req.headers, raw: Buffer.concat(chunks).toString('utf8') });
      const answer = answers.shift() ?? { status: 204 };
      void (hold ?? Promise.resolve()).then(() => {
        res.writeHead(answer.status, answer.headers ?? {});
        res.end(answer.body ?? '');
      });
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    calls,
    /** Holds every answer until the returned function is called. */
    holdAnswers: () => {
      let release!: () => void;
      hold = new Promise<void>((r) => (release = r));
      return () => {
        hold = null;
        release();
      };
    },
    answer: (...next: { status: number; headers?: Record<string, string>; body?: string }[]) => void answers.push(...next),
    reset: () => {
      calls.length = 0;
      answers.length = 0;
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

export type WebhookReceiver = Awaited<ReturnType<typeof startWebhookReceiver>>;
