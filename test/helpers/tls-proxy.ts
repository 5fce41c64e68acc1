import { connect, type Socket } from 'node:net';
import { createServer, type TLSSocket } from 'node:tls';

import { generate } from 'selfsigned';

import { freePort } from './ports';

export interface TlsProxy {
  port: number;
  close(): Promise<void>;
}

/**
 * An https front for an app on 127.0.0.1:`targetPort`, as Caddy is in production: TLS
 * ends here and the bytes go on as they are (Host header included) over plain TCP.
 * The certificate is self-signed for `hosts` (the browser is told to accept it), so a
 * browser sees real https origins for names other than localhost, and with them the
 * cookie rules that only hold over https (`Secure`, `__Host-`).
 */
export async function startTlsProxy(targetPort: number, hosts: string[], port?: number): Promise<TlsProxy> {
  const pems = await generate([{ name: 'commonName', value: hosts[0] }], {
    keySize: 2048,
    algorithm: 'sha256',
    extensions: [{ name: 'subjectAltName', altNames: hosts.map((value) => ({ type: 2 as const, value })) }],
  });
  const open = new Set<Socket>();
  const server = createServer({ key: pems.private, cert: pems.cert }, (client: TLSSocket) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      open.add(socket);
      socket.on('close', () => open.delete(socket));
    }
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.pipe(upstream).pipe(client);
  });
  const listenOn = port ?? (await freePort());
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listenOn, '127.0.0.1', resolve);
  });
  return {
    port: listenOn,
    async close() {
      open.forEach((socket) => socket.destroy());
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
