/**
 * Headless Chromium for the page tests: opens a URL in a fresh profile (optionally with a bearer
 * token), lets the test check the page, and saves a full-page screenshot under tests/.artifacts (the
 * docs' images come from there).
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Page } from 'playwright-core';
import { which } from './prometheus.ts';
import { ROOT } from './process.ts';

/** Opens `url`, runs `check` on the page, and screenshots it to tests/.artifacts/`screenshot`. */
export async function inChromium(options: { url: string; token?: string; width?: number; height?: number; screenshot: string }, check: (page: Page) => Promise<void>): Promise<void> {
  const profile = mkdtempSync(join(tmpdir(), 'ragwatch-chromium-'));
  const executablePath = existsSync('/usr/lib/chromium/chromium') ? '/usr/lib/chromium/chromium' : which('chromium')!;
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    viewport: { width: options.width ?? 900, height: options.height ?? 600 },
    ...(options.token ? { extraHTTPHeaders: { authorization: `Bearer ${options.token}` } } : {}),
    args: ['--no-sandbox', '--disable-gpu', '--no-first-run'],
  });
  try {
    const page = await browser.newPage();
    const response = await page.goto(options.url);
    if (response?.status() !== 200) throw new Error(`${options.url} answered ${response?.status()}`);
    await check(page);
    mkdirSync(join(ROOT, 'tests/.artifacts'), { recursive: true });
    await page.screenshot({ path: join(ROOT, 'tests/.artifacts', options.screenshot), fullPage: true });
  } finally {
    await browser.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
