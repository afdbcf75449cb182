/**
 * Headless Chromium for driving the emulator's pages (playwright-core with
 * the system's Chromium). One browser per test file; a fresh context (no
 * cookies) per use.
 */
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';

export const CHROMIUM_PATH = process.env.LANYARD_CHROMIUM ?? '/usr/bin/chromium';

export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
  });
}

/** A new page in a fresh context; close the returned context when done. */
export async function freshPage(browser: Browser): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  return { context, page };
}

/** Runs `f` with a page of a fresh context, closing the context afterwards. */
export async function withPage<T>(browser: Browser, f: (page: Page) => Promise<T>): Promise<T> {
  const { context, page } = await freshPage(browser);
  try {
    return await f(page);
  } finally {
    await context.close();
  }
}

/** One browser for a test file: launched before all its tests, closed after. */
export function useBrowser(set: (b: Browser) => void): void {
  let b: Browser | undefined;
  beforeAll(async () => {
    b = await launchBrowser();
    set(b);
  });
  afterAll(async () => b?.close());
}
