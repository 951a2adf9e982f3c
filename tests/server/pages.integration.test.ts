/**
 * The pages in real headless Chromium (Debian package, driven by playwright-core), over the same
 * fixtures as their HTML tests: the calibration and weakness pages render (the docs' screenshots under
 * tests/.artifacts), and a reviewer labels three answers with the keyboard, reloads, and the labels
 * are in the SQLite file a fresh store reads back — while the page without the token is refused.
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ReviewStore } from '../../src/store/review-store.ts';
import { openDatabase } from '../../src/store/sqlite.ts';
import { inChromium } from '../helpers/chromium.ts';
import { haveBinaries, which } from '../helpers/prometheus.ts';
import { ROOT } from '../helpers/process.ts';
import { calibrationPage, reviewPage, weaknessesPage, weaknessesTopicsPage, type PageFixture } from './page-fixtures.ts';

const enabled = haveBinaries('pages in Chromium', 'chromium');

describe.skipIf(!enabled)('pages in headless Chromium', () => {
  it('/calibration renders its reliability diagrams (screenshot for docs/calibration.md)', async () => {
    const page = await calibrationPage();
    try {
      await inChromium({ url: `${page.base}/calibration`, token: page.token, screenshot: 'calibration-page.png' }, async (p) => {
        expect(await p.locator('section svg circle').count()).toBeGreaterThan(10);
      });
    } finally {
      await page.close();
    }
  }, 60_000);

  it('/weaknesses renders the flagged cell', async () => {
    const page = await weaknessesPage();
    try {
      await inChromium({ url: `${page.base}/weaknesses`, token: page.token, width: 800, height: 420, screenshot: 'weaknesses-page.png' }, async (p) => {
        expect(await p.locator('td.flag').count()).toBe(1);
        expect(await p.locator('ol.flags li').count()).toBe(1);
      });
    } finally {
      await page.close();
    }
  }, 60_000);

  it('/weaknesses with live topics renders the heat map with the flagged cell', async () => {
    const page = await weaknessesTopicsPage();
    try {
      await inChromium({ url: `${page.base}/weaknesses`, token: page.token, width: 1000, height: 700, screenshot: 'weaknesses-page-topics.png' }, async (p) => {
        expect(await p.locator('table.heat td.flag').count()).toBeGreaterThanOrEqual(1);
      });
    } finally {
      await page.close();
    }
  }, 90_000);
});

describe.skipIf(!enabled)('/review in headless Chromium', () => {
  let page0: PageFixture;
  const dir = mkdtempSync(join(tmpdir(), 'ragwatch-review-'));
  const dataDir = join(dir, 'data');
  beforeAll(async () => {
    page0 = await reviewPage(dataDir);
    // One answer labelled through the API first: the page lists the other four.
    const res = await fetch(`${page0.base}/api/labels`, { method: 'POST', headers: { authorization: `Bearer ${page0.token}`, 'content-type': 'application/json' }, body: JSON.stringify({ tripletId: 'ans-4', metric: 'answer_relevancy', value: 1, reviewer: 'api' }) });
    expect(res.status).toBe(201);
  });
  afterAll(async () => {
    await page0?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  let browser: BrowserContext | undefined;
  const profile = mkdtempSync(join(tmpdir(), 'ragwatch-chromium-review-'));
  afterAll(async () => {
    await browser?.close();
    rmSync(profile, { recursive: true, force: true });
  });

  it('labels three answers with the keyboard; after a reload they are counted and in the database', async () => {
    const executablePath = existsSync('/usr/lib/chromium/chromium') ? '/usr/lib/chromium/chromium' : which('chromium')!;
    browser = await chromium.launchPersistentContext(profile, { executablePath, headless: true, viewport: { width: 1000, height: 800 }, args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-sync'] });
    const page = await browser.newPage();
    expect((await page.goto(`${page0.base}/review`))?.status()).toBe(401);
    await page.locator('input[name="token"]').fill(page0.token);
    const [res] = await Promise.all([page.waitForNavigation(), page.locator('button[type="submit"]').click()]);
    expect(res?.status()).toBe(200);
    const ids = await page.locator('article').evaluateAll((els) => els.map((e) => (e as unknown as { dataset: { tripletId: string } }).dataset.tripletId));
    expect(ids).toHaveLength(4); // ans-4 is already labelled
    // Answer 1: y, n (two questions); answer 2: n, u; answer 3: y, y.
    for (const key of ['y', 'n', 'n', 'u', 'y', 'y']) {
      const saved = key === 'u' ? Promise.resolve() : page.waitForResponse((r) => r.url().endsWith('/api/labels') && r.status() === 201);
      await page.keyboard.press(key);
      await saved;
    }
    expect(await page.locator('#progress').innerText()).toBe('3 / 4');
    expect(await page.locator('article.done').count()).toBe(3);
    expect(await page.locator('article script').count()).toBe(0);
    mkdirSync(join(ROOT, 'tests/.artifacts'), { recursive: true });
    await page.screenshot({ path: join(ROOT, 'tests/.artifacts/review-page.png'), fullPage: true });
    await page.reload();
    expect(await page.locator('article').count()).toBe(1);
    expect(await page.locator('body').innerText()).toContain('answers labelled in total: 4');
    // Straight from the SQLite file, through a second connection.
    const again = new ReviewStore({ db: await openDatabase(join(dataDir, 'ragwatch.sqlite')), maxItems: 100, maxLabels: 100 });
    const labels = again.labels().filter((l) => l.reviewer === undefined);
    expect(labels.map((l) => [l.tripletId, l.metric, l.value])).toEqual([
      [ids[0], 'groundedness', 1],
      [ids[0], 'answer_relevancy', 0],
      [ids[1], 'groundedness', 0],
      [ids[2], 'groundedness', 1],
      [ids[2], 'answer_relevancy', 1],
    ]);
    await again.shutdown();
  }, 60_000);
});
