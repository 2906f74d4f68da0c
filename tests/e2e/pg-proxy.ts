/**
 * A TCP proxy in front of PostgreSQL for the e2e tests of outages (postgres-outage, readiness,
 * delivery-outage and crash-loss tests): the server under test connects through it, and down() makes "PostgreSQL goes
 * away" (every connection dropped, new ones refused) without touching the real server; up() brings
 * it back on the same port, as after a restart. setLatency(ms) delays every chunk in both
 * directions by ms (order kept): a database slower than the intake.
 */
import net from 'node:net';

/** A TCP proxy to PostgreSQL that can drop every connection and refuse new ones (down) until up(). */
export interface PgProxy {
  port: number;
  down(): Promise<void>;
  up(): Promise<void>;
  /** Delays every chunk from now on by `ms` in each direction (0: none). */
  setLatency(ms: number): void;
  close(): Promise<void>;
}

/**
 * Starts a proxy to the PostgreSQL server of `databaseUrl` and returns it with the same URL pointed
 * through it (127.0.0.1 and the proxy's port; user, database and parameters kept).
 */
export async function proxiedDatabase(databaseUrl: string): Promise<{ proxy: PgProxy; url: URL }> {
  const target = new URL(databaseUrl);
  const proxy = await startPgProxy({ host: target.hostname || '127.0.0.1', port: Number(target.port || 5432) });
  const url = new URL(databaseUrl);
  url.hostname = '127.0.0.1';
  url.port = String(proxy.port);
  return { proxy, url };
}

/** Starts a proxy to `target` on a free loopback port. */
export async function startPgProxy(target: { host: string; port: number }): Promise<PgProxy> {
  const sockets = new Set<net.Socket>();
  let latency = 0;
  /** Forwards `from` to `to`, each chunk `latency` ms later and never before the one ahead of it. */
  const forward = (from: net.Socket, to: net.Socket) => {
    const queue: Array<{ at: number; chunk: Buffer }> = [];
    let timer: NodeJS.Timeout | null = null;
    const drain = () => {
      timer = null;
      while (queue.length > 0 && queue[0]!.at <= Date.now()) {
        const { chunk } = queue.shift()!;
        if (!to.destroyed) to.write(chunk);
      }
      if (queue.length > 0) timer = setTimeout(drain, queue[0]!.at - Date.now());
    };
    from.on('data', (chunk: Buffer) => {
      if (latency === 0 && queue.length === 0) return void to.write(chunk);
      queue.push({ at: Date.now() + latency, chunk });
      timer ??= setTimeout(drain, queue[0]!.at - Date.now());
    });
  };
  const track = (s: net.Socket) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
    s.on('error', () => s.destroy());
  };
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    track(client);
    track(upstream);
    client.on('close', () => upstream.destroy());
    upstream.on('close', () => client.destroy());
    forward(client, upstream);
    forward(upstream, client);
  });
  const listen = (port: number) => new Promise<void>((resolve) => server.listen(port, '127.0.0.1', () => resolve()));
  await listen(0);
  const port = (server.address() as net.AddressInfo).port;
  const closeListener = () => new Promise<void>((resolve) => (server.listening ? server.close(() => resolve()) : resolve()));
  return {
    port,
    down: async () => {
      const closed = closeListener();
      for (const s of sockets) s.destroy();
      await closed;
    },
    up: () => (server.listening ? Promise.resolve() : listen(port)),
    setLatency: (ms) => void (latency = ms),
    close: async () => {
      const closed = closeListener();
      for (const s of sockets) s.destroy();
      await closed;
    },
  };
}
