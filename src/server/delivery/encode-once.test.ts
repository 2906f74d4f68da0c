/**
 * A cold banner is encoded once, however many requests ask for it at the same moment (a restart
 * under load): concurrent first requests for one asset, format and size share one resize (one
 * placeholder render), all get the same bytes, and dcb_banner_encodings_total counts exactly the
 * encodings made. A failed encoding is not kept: the next request tries again. Through
 * fastify.inject, the route every request takes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eq } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { createSignedInTestApp, type TestApp } from '../test-app';
import { DEMO_DEALER } from '../db/seed';
import { assetBlobs } from '../db/schema';
import { makeBanner, multipartBody } from '../../../tests/fixtures/images';

const TOKEN = 'metrics-token-encode-once-0123';
/** Concurrent first requests per banner variant. */
const N = 30;
let t: TestApp;
let cookie: string;

beforeAll(async () => {
  ({ t, cookie } = await createSignedInTestApp('dealer-manager', { env: { METRICS_TOKEN: TOKEN } }));
});
afterAll(() => t.close());

/** Uploads one banner for the demo dealer; returns its asset id. */
async function upload(filename: string, data: Buffer): Promise<string> {
  const { body, contentType } = multipartBody([{ filename, data }]);
  const res = await t.app.inject({ method: 'POST', url: `/api/dealers/${DEMO_DEALER.id}/assets`, payload: body, headers: { cookie, 'content-type': contentType } });
  const result = res.json().results[0];
  expect(result.ok, res.body).toBe(true);
  return result.asset.id as string;
}

/** dcb_banner_encodings_total by format, as /metrics exposes it (this process's counter). */
async function encodings(): Promise<Record<string, number>> {
  const res = await t.app.inject({ url: '/metrics', headers: { authorization: `Bearer ${TOKEN}` } });
  expect(res.statusCode).toBe(200);
  const counts: Record<string, number> = { webp: 0, orig: 0, svg: 0 };
  for (const m of res.body.matchAll(/^dcb_banner_encodings_total\{format="(\w+)"\} (\d+)$/gm)) counts[m[1]!] = Number(m[2]);
  return counts;
}

const diff = (after: Record<string, number>, before: Record<string, number>) => Object.fromEntries(Object.keys(after).map((k) => [k, after[k]! - (before[k] ?? 0)]));

/** `n` requests for `url` sent at once. */
const burst = (n: number, url: string, headers: Record<string, string>) => Promise.all(Array.from({ length: n }, () => t.app.inject({ method: 'GET', url, headers })));

/** All answers 200 with one and the same body and ETag. */
function expectIdentical(answers: LightMyRequestResponse[]): void {
  for (const res of answers) {
    expect(res.statusCode, res.body.slice(0, 200)).toBe(200);
    expect(res.headers.etag).toBe(answers[0]!.headers.etag);
    expect(res.rawPayload.equals(answers[0]!.rawPayload)).toBe(true);
  }
}

describe('a cold banner under concurrent first requests', () => {
  it(`encodes each (asset, format, size) once for ${N} concurrent requests each, every answer byte-identical`, async () => {
    await upload('new_2025_honda_civic_sport_1920x300.jpg', await makeBanner(1920, 300));
    const asset = `/api/scripts/${DEMO_DEALER.id}/asset?model=civic&type=header&variant=desktop`;
    const placeholder = `/api/scripts/${DEMO_DEALER.id}/asset?model=pilot&type=primary&variant=mobile`;
    const before = await encodings();
    const [webp, orig, webp2x, svg] = await Promise.all([
      burst(N, asset, { accept: 'image/avif,image/webp,*/*' }),
      burst(N, asset, { accept: 'image/*' }),
      burst(N, `${asset}&scale=2`, { accept: 'image/webp' }),
      burst(N, placeholder, { accept: 'image/webp' }),
    ]);
    for (const group of [webp, orig, webp2x, svg]) expectIdentical(group);
    expect(webp[0]!.headers['content-type']).toBe('image/webp');
    expect(orig[0]!.headers['content-type']).toBe('image/jpeg');
    expect(svg[0]!.headers['content-type']).toMatch(/^image\/svg\+xml/);
    // Two WebP sizes (1x, 2x: another key, though a 1920 px source is not enlarged), one original-format size, one placeholder: one encoding each.
    expect(diff(await encodings(), before)).toEqual({ webp: 2, orig: 1, svg: 1 });
    // Later requests are answered from the cache: no more encodings.
    expectIdentical([webp[0]!, ...(await burst(5, asset, { accept: 'image/webp' }))]);
    expect(diff(await encodings(), before)).toEqual({ webp: 2, orig: 1, svg: 1 });
  });

  it('answers a failed encoding to every waiting request with a 500 (no-store), keeps nothing, and encodes on the next request', async () => {
    const id = await upload('new_2025_honda_accord_ex_1920x300.png', await makeBanner(1920, 300, 'png', '#0044aa'));
    const [stored] = await t.database.db.select({ data: assetBlobs.data }).from(assetBlobs).where(eq(assetBlobs.assetId, id));
    const url = `/api/scripts/${DEMO_DEALER.id}/asset?model=accord&type=header&variant=desktop`;
    const before = await encodings();
    // The stored bytes become unreadable: sharp fails on them.
    await t.database.db.update(assetBlobs).set({ data: Buffer.from('not an image at all') }).where(eq(assetBlobs.assetId, id));
    const failed = await burst(10, url, { accept: 'image/webp' });
    for (const res of failed) {
      expect(res.statusCode).toBe(500);
      expect(res.headers['cache-control']).toBe('no-store');
    }
    expect(diff(await encodings(), before)).toEqual({ webp: 0, orig: 0, svg: 0 });
    await t.database.db.update(assetBlobs).set({ data: stored!.data }).where(eq(assetBlobs.assetId, id));
    const recovered = await burst(10, url, { accept: 'image/webp' });
    expectIdentical(recovered);
    expect(recovered[0]!.headers['x-banner-creative']).toBe(id);
    expect(diff(await encodings(), before)).toEqual({ webp: 1, orig: 0, svg: 0 });
  });
});
