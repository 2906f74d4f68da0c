/** The start-up warning about a PUBLIC_ORIGIN that ad blockers block, as an operator reads it in the log. */
import { afterAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from '../test-app';
import { warnOfBlockedPublicOrigin } from './blocklist-warning';

interface LogLine {
  level: number;
  msg: string;
  rule?: string;
  publicOrigin?: string;
}

const apps: TestApp[] = [];
afterAll(async () => {
  for (const t of apps) await t.close();
});

describe('start-up warning about an ad-blocked PUBLIC_ORIGIN', () => {
  it('logs one warn line naming the rule and what to rename when the host starts with banners.', async () => {
    const lines: LogLine[] = [];
    apps.push(await createTestApp({ seed: false, env: { PUBLIC_ORIGIN: 'https://banners.example.com' }, logStream: { write: (line) => void lines.push(JSON.parse(line) as LogLine) } }));
    const warnings = lines.filter((l) => l.level === 40 && l.msg.includes('PUBLIC_ORIGIN'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ rule: '://banners.', publicOrigin: 'https://banners.example.com' });
    expect(warnings[0]!.msg).toContain('`://banners.`');
    expect(warnings[0]!.msg).toContain('another first label');
  });

  it('writes nothing for a plausible production host or the default paths', () => {
    const written: string[] = [];
    for (const origin of ['https://dcb.example.com', 'https://www.dealer.com/dcb', 'http://localhost:3000']) {
      expect(warnOfBlockedPublicOrigin(origin, (_obj, msg) => written.push(msg))).toBe(0);
    }
    expect(written).toEqual([]);
  });

  it('names a path prefix that ad blockers block', () => {
    const written: Array<Record<string, unknown>> = [];
    warnOfBlockedPublicOrigin('https://www.dealer.com/banners', (obj) => written.push(obj));
    expect(written).toEqual([expect.objectContaining({ rule: '/banners/', blockedName: 'banners' })]);
  });
});
