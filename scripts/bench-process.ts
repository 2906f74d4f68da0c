/**
 * What the bench scripts share (scripts/bench.ts, bench-volume.ts, bench-inventory.ts): starting
 * scripts/bench-server.ts in its own process, and whether PostgreSQL answers.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import pg from 'pg';

/** A bench server process. */
export interface BenchServer {
  origin: string;
  child: ChildProcess;
  /** SIGTERM; resolves with the exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts scripts/bench-server.ts with `env` added to this process's environment and resolves with
 * its origin once it listens (the JSON line it prints). @throws when the process exits first.
 */
export async function startBenchServer(env: Record<string, string>): Promise<BenchServer> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/bench-server.ts'], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout! });
  const origin = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`bench server exited (${code})`)));
    lines.on('line', (l) => {
      try {
        resolve((JSON.parse(l) as { origin: string }).origin);
      } catch {
        /* not our line */
      }
    });
  });
  return {
    origin,
    child,
    stop: () =>
      new Promise((resolve) => {
        child.removeAllListeners('exit');
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

/** True when PostgreSQL at `url` accepts a connection within 2 s. */
export async function postgresReachable(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.end();
    return true;
  } catch {
    return false;
  }
}
