/**
 * `/calibration`: reliability bins by hand, and the page of a refitted calibration — behind the token,
 * one section per calibrated metric with raw and calibrated series in an SVG reliability diagram whose
 * calibrated points lie closer to the diagonal. In headless Chromium: `pages.integration.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reliabilityBins } from '../../src/server/calibration-page.ts';
import { calibrationPage, type PageFixture } from './page-fixtures.ts';

describe('reliability bins', () => {
  it('average prediction and fraction good per tenth, empty bins left out', () => {
    expect(reliabilityBins([0.05, 0.15, 0.12, 0.95], [0, 1, 0, 1])).toEqual([
      { x: 0.05, y: 0, n: 1 },
      { x: 0.135, y: 0.5, n: 2 },
      { x: 0.95, y: 1, n: 1 },
    ]);
  });
});

describe('/calibration', () => {
  let page: PageFixture;
  beforeAll(async () => {
    page = await calibrationPage();
  });
  afterAll(() => page?.close());

  it('is refused without the token, and draws raw and calibrated reliability with the calibrated points nearer the diagonal', async () => {
    const url = `${page.base}/calibration`;
    expect((await fetch(url)).status).toBe(401);
    const html = await (await fetch(url, { headers: { authorization: `Bearer ${page.token}` } })).text();
    expect(html).toContain('grounding_lexical (embedded judge)');
    const circles = (cls: string) => [...html.matchAll(new RegExp(`<circle class="${cls}" cx="([\\d.]+)" cy="([\\d.]+)"`, 'g'))].map((m) => [Number(m[1]), Number(m[2])] as const);
    const raw = circles('raw');
    const cal = circles('calibrated');
    expect(raw.length).toBeGreaterThanOrEqual(8);
    expect(cal.length).toBeGreaterThanOrEqual(3);
    // Distance from the diagonal in SVG units (y grows downwards: the diagonal is cx + cy = const).
    const off = (pts: ReadonlyArray<readonly [number, number]>) => pts.reduce((a, [x, y]) => a + Math.abs(x + y - 320), 0) / pts.length;
    expect(off(cal)).toBeLessThan(off(raw) / 2);
    const api = (await (await fetch(`${page.base}/api/calibration`, { headers: { authorization: `Bearer ${page.token}` } })).json()) as { calibrations: unknown[]; labels: number };
    expect(api).toMatchObject({ labels: 800 });
    expect(api.calibrations).toHaveLength(1);
  });
});
