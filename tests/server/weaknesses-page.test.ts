/**
 * `/weaknesses`: behind the token; the flagged cells first with links to their worst answers; per
 * question type (and topic, once fitted) each metric's weighted mean, coloured by its threshold,
 * outlined when flagged, faded under weakness.minCount answers; escaped. In headless Chromium (the
 * docs' screenshots): `pages.integration.test.ts`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { weaknessesPage, weaknessesTopicsPage, type PageFixture } from './page-fixtures.ts';

describe('/weaknesses', () => {
  let page: PageFixture;
  beforeAll(async () => {
    page = await weaknessesPage();
  });
  afterAll(() => page?.close());

  it('shows each question type\'s mean: red below the threshold, faded when few', async () => {
    const url = `${page.base}/weaknesses`;
    expect((await fetch(url)).status).toBe(401);
    const html = await (await fetch(url, { headers: { authorization: `Bearer ${page.token}` } })).text();
    const row = (type: string) => new RegExp(`<th scope="row">${type}</th><td(?: class="([^"]+)")? style="background:hsl\\((\\d+)[^"]*"[^>]*>([\\d.]+)`).exec(html);
    // who: 0.50 < threshold 0.80 (red hue 0), flagged against the rest (0.95); when: above (green); why: too few answers (faded).
    expect(row('who')?.slice(1)).toEqual(['flag', '0', '0.50']);
    expect(row('when')?.[1]).toBeUndefined();
    expect(Number(row('when')?.[2])).toBeGreaterThan(90);
    expect(row('when')?.[3]).toBe('0.95');
    expect(row('why')?.slice(1, 2)).toEqual(['few']);
    expect(html).toMatch(/<li><b>grounding_lexical<\/b> <span class="meta">embedded<\/span> on question type who: <b>0\.50<\/b> \[0\.50, 0\.50\], n = 25; the rest 0\.95 <a href="examples\?metric=grounding_lexical&amp;ids=w\d+,w\d+,w\d+">worst answers<\/a><\/li>/);
    const { examples } = (await (await fetch(`${page.base}/api/examples?ids=w0,w1,w30`, { headers: { authorization: `Bearer ${page.token}` } })).json()) as { examples: Array<{ record: { tripletId: string } }> };
    expect(examples.map((e) => e.record.tripletId).sort()).toEqual(['w0', 'w1']);
    expect(html).toContain('Topics appear once weakness.warmupQueries questions were seen');
    expect(html).not.toContain('<b>x</b>');
  });
});

describe('/weaknesses with live topics', () => {
  it('fits topics from the traffic, flags the planted refund × how cell first with its worst answers, and draws the heat map and box plots', async () => {
    const page = await weaknessesTopicsPage();
    try {
      const html = await (await fetch(`${page.base}/weaknesses`, { headers: { authorization: `Bearer ${page.token}` } })).text();
      const first = /<ol class="flags"><li>(.*?)<\/li>/.exec(html)?.[1] ?? '';
      expect(first).toMatch(/^<b>grounding_lexical<\/b> <span class="meta">embedded<\/span> on topic &quot;[^&]*refund[^&]*&quot; × question type how: <b>0\.[34]\d<\/b>/);
      expect(first).toMatch(/ids=p\d+,p\d+,p\d+">worst answers/);
      expect(html).toContain('grounding_lexical (embedded): topic × question type');
      expect(html).toContain('<svg role="img" aria-label="box plot per topic"');
    } finally {
      await page.close();
    }
  }, 90_000);
});
