/**
 * The origin of bench:serve's proxy rows (issue 34): a bare node:http server answering
 * every request with the same small JSON body, run as its own process (pinned by the
 * bench). Prints `{ready, port}` on stdout when it accepts connections.
 */
import { createServer } from 'node:http';

import { freePort } from './harness';

const BODY = Buffer.from(JSON.stringify({ ok: true, items: Array.from({ length: 10 }, (_, i) => ({ id: i, name: `item ${i}` })) }));

async function main(): Promise<void> {
  const port = await freePort();
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      res.writeHead(200, { 'Content-Type': 'application/json', 'Content-Length': BODY.length });
      res.end(BODY);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(port, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ ready: true, port })}\n`));
  process.on('SIGTERM', () => server.close(() => process.exit(0)));
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
