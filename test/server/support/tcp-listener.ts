// A TCP listener on loopback that counts connections (plain or TLS) and answers nothing: the
// witness that a refused webhook destination was never connected to.
import { createServer, type AddressInfo } from 'node:net';

export interface TcpListener {
  port: number;
  connections(): number;
  close(): Promise<void>;
}

export async function tcpListener(): Promise<TcpListener> {
  let n = 0;
  const server = createServer((socket) => {
    n++;
    socket.destroy();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => n,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
