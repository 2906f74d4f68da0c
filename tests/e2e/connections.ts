/**
 * HTTP requests on chosen TCP connections, for the tests of several server processes:
 * node:cluster spreads connections, not requests, over the workers, so a test that wants to know
 * which worker answered a request sends it and a GET /healthz (which names the worker's pid) on
 * the same kept-alive connection.
 */
import http from 'node:http';

/** One request to send. */
export interface Call {
  method?: string;
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

/** A response: status, headers and body text. */
export interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** Sends `call` to `origin` through `agent` (false: a new connection). */
export function request(origin: string, call: Call, agent: http.Agent | false = false): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request(new URL(call.path, origin), { method: call.method ?? 'GET', headers: call.headers, agent }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }));
    });
    req.on('error', reject);
    req.end(call.body);
  });
}

/** Sends `calls` one after another on one new connection, then closes it; answers in order. */
export async function onOneConnection(origin: string, calls: Call[]): Promise<Answer[]> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  try {
    const answers: Answer[] = [];
    for (const call of calls) answers.push(await request(origin, call, agent));
    return answers;
  } finally {
    agent.destroy();
  }
}

/** The pid /healthz names in an answer. */
export const pidOf = (answer: Answer): number => (JSON.parse(answer.body) as { pid: number }).pid;
