/**
 * Control characters in a request URL (U+0000 to U+001F and U+007F, raw or percent-encoded, in any
 * path segment or query part) are refused with 400 INVALID naming the part, before any hook or
 * route reads the URL: a NUL byte reaching a database query fails there as a 500 with a stack in
 * the error log, so a flood of such requests would fill the log and trip the 5xx alert. The
 * refusal is one warn line (a client's mistake, not ours).
 */
import type { FastifyInstance } from 'fastify';
import fp from 'fastify-plugin';
import { Invalid } from '../errors';

/**
 * A control character as it can appear in a URL: raw, or percent-encoded (`%00`-`%1F`, `%7F`).
 * UTF-8 never encodes these code points in more than one byte, so this matches exactly the URLs
 * whose decoded parts hold one (`%2500` decodes to the text `%00`, which is no control character).
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x1f\x7f]|%(?:[01][0-9a-f]|7f)/i;

/** A part's text as shown in a message or the log: raw control characters percent-encoded, cut to `max` characters. */
const shown = (raw: string, max = 60): string => {
  // eslint-disable-next-line no-control-regex -- as CONTROL
  const text = raw.replace(/[\x00-\x1f\x7f]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`);
  return text.length > max ? `${text.slice(0, max - 3)}...` : text;
};

/**
 * Names the first part of `url` (a request's raw path and query) that holds a control character,
 * as a sentence for the 400 message; null when none does. A path segment is named by the route's
 * parameter when `template` (the matched route, e.g. `/api/scripts/:dealerId/asset`) has one at
 * that place, else by its position; a query part by its parameter name.
 */
export function controlCharacterPart(url: string, template?: string): string | null {
  if (!CONTROL.test(url)) return null;
  const q = url.indexOf('?');
  const path = q === -1 ? url : url.slice(0, q);
  const segments = path.split('/');
  const names = template?.split('/') ?? [];
  for (let i = 0; i < segments.length; i++) {
    if (!CONTROL.test(segments[i]!)) continue;
    const name = names[i]?.startsWith(':') ? `path parameter ${names[i]!.slice(1)}` : `path segment ${i} ("${shown(segments[i]!)}")`;
    return `The ${name} contains a control character; control characters (U+0000 to U+001F, U+007F) are not allowed in URLs`;
  }
  for (const part of url.slice(q + 1).split('&')) {
    if (!CONTROL.test(part)) continue;
    const eq = part.indexOf('=');
    const key = eq === -1 ? part : part.slice(0, eq);
    const name = CONTROL.test(key) ? `query parameter name "${shown(key)}"` : `value of the query parameter ${shown(key)}`;
    return `The ${name} contains a control character; control characters (U+0000 to U+001F, U+007F) are not allowed in URLs`;
  }
  return 'The URL contains a control character; control characters (U+0000 to U+001F, U+007F) are not allowed in URLs';
}

/**
 * Fastify plugin: the check above as the first onRequest hook of every route and of the not-found
 * handler (register it before any plugin whose hooks read the URL, the session or the database).
 * @throws Invalid (400) naming the part, after one warn line.
 */
export const controlCharacterPlugin = fp(async (app: FastifyInstance) => {
  app.addHook('onRequest', async (request) => {
    const url = request.raw.url ?? '';
    if (!CONTROL.test(url)) return;
    const message = controlCharacterPart(url, request.routeOptions.url)!;
    request.log.warn({ url: shown(url, 500), route: request.routeOptions.url ?? null }, 'control character in URL refused with 400');
    throw new Invalid(message);
  });
});
