/**
 * The sign-in screen under a password-guessing attack: after five wrong passwords
 * for one email the account is locked for a minute, and the screen says so with the server's
 * 'Too many attempts, try again in 1 minute' instead of 'Invalid credentials' — even for the right
 * password. Other accounts still sign in.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { launchBrowser, newPage, screenshotPath, startServer, type RunningServer } from './harness';

let server: RunningServer;
let browser: Browser;
let page: Page;

beforeAll(async () => {
  server = await startServer();
  browser = await launchBrowser();
  page = await newPage(browser);
});
afterAll(async () => {
  await browser?.close();
  await server?.stop();
});

async function signIn(email: string, password: string) {
  await page.getByLabel(/^Email/).fill(email);
  await page.getByLabel(/^Password/).fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

it('locks an email after five wrong passwords and says when to try again', async () => {
  await page.goto(server.origin);
  const attempt = async (email: string, password: string) => {
    const answered = page.waitForResponse((r) => r.url().endsWith('/api/auth/login'));
    await signIn(email, password);
    return (await answered).status();
  };
  for (let i = 0; i < 5; i++) expect(await attempt('manager@hondaofdemo.com', `wrong-${i}`)).toBe(401);
  await page.getByText('Invalid credentials').waitFor();
  expect(await attempt('manager@hondaofdemo.com', 'manager123')).toBe(429);
  await page.getByText('Too many attempts, try again in 1 minute').waitFor();
  await page.screenshot({ path: screenshotPath('sign-in-throttled') });
  expect(page.url()).not.toMatch(/\/dealer/);

  // Another account is not affected.
  await signIn('viewer@hondaofdemo.com', 'viewer123');
  await page.waitForURL(/\/dealer/);
});
