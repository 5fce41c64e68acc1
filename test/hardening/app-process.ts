/**
 * The real app as its own process, so a test can crash it (SIGKILL) at a chosen
 * moment. Settings come from the environment; prints one JSON line `{"port":…}`
 * on stdout once it accepts connections.
 */
import 'reflect-metadata';

import { createApp } from '../../src/app.factory';

async function main(): Promise<void> {
  const { app } = await createApp({ env: { LOG_LEVEL: 'warn' } });
  await app.listen(Number(process.env.PORT), '127.0.0.1');
  process.stdout.write(`${JSON.stringify({ port: Number(process.env.PORT) })}\n`);
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack}\n`);
  process.exit(1);
});
