import type { AddressInfo } from 'node:net';

import { type ParsedMail, simpleParser } from 'mailparser';
import { SMTPServer } from 'smtp-server';

export interface ReceivedMail {
  /** Envelope recipients, as the server was told them. */
  rcptTo: string[];
  mailFrom: string;
  parsed: ParsedMail;
  /** The message as sent, headers and all. */
  raw: string;
}

export interface TestSmtpServer {
  url: string;
  port: number;
  received: ReceivedMail[];
  /** The next `n` messages are refused with a temporary 451. */
  failNext(n: number): void;
  close(): Promise<void>;
}

/** A real SMTP server on loopback (the `smtp-server` package) that keeps what it accepts. */
export async function startSmtpServer(): Promise<TestSmtpServer> {
  const received: ReceivedMail[] = [];
  let failures = 0;
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        if (failures > 0) {
          failures--;
          const err = Object.assign(new Error('try again later'), { responseCode: 451 });
          return callback(err);
        }
        const raw = Buffer.concat(chunks);
        simpleParser(raw).then(
          (parsed) => {
            received.push({
              rcptTo: session.envelope.rcptTo.map((r) => r.address),
              mailFrom: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
              parsed,
              raw: raw.toString('utf8'),
            });
            callback();
          },
          (err: Error) => callback(err),
        );
      });
    },
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.server.address() as AddressInfo).port;
  return {
    url: `smtp://127.0.0.1:${port}`,
    port,
    received,
    failNext: (n) => void (failures = n),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The first link in a mail's text part that starts with `base`. */
export function linkIn(mail: ReceivedMail, base: string): URL {
  const found = (mail.parsed.text ?? '').split(/\s+/).find((word) => word.startsWith(base));
  if (!found) throw new Error(`no link to ${base} in: ${mail.parsed.text}`);
  return new URL(found);
}
