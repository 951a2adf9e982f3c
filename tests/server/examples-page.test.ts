/** The examples page's highlighting of unsupported claims: whole words, exact case first, escaped. */
import { describe, expect, it } from 'vitest';
import { highlight } from '../../src/server/examples-page.ts';
import { escapeHtml } from '../../src/server/layout.ts';

describe('highlight', () => {
  it('marks every exact occurrence and escapes around and inside the marks', () => {
    const { html, unmatched } = highlight('A <b>x</b> claim. A <b>x</b> claim.', ['<b>x</b> claim', 'absent claim']);
    expect(html).toBe('A <mark class="unsupported">&lt;b&gt;x&lt;/b&gt; claim</mark>. A <mark class="unsupported">&lt;b&gt;x&lt;/b&gt; claim</mark>.');
    expect(unmatched).toEqual(['absent claim']);
    expect(escapeHtml(`"'&<>`)).toBe('&quot;&#39;&amp;&lt;&gt;');
  });

  it('marks whole words only: an unsupported "to" is not marked inside "Atoms" or "touring"', () => {
    expect(highlight('Atoms went touring to Paris.', ['to']).html).toBe('Atoms went touring <mark class="unsupported">to</mark> Paris.');
    expect(highlight('Atoms went touring.', ['to'])).toEqual({ html: 'Atoms went touring.', unmatched: ['to'] });
    // "1896" is not marked inside "18960", nor "Lucas" inside "Lucasfilm".
    expect(highlight('In 18960 Lucasfilm and Lucas met.', ['1896', 'Lucas']).html).toBe('In 18960 Lucasfilm and <mark class="unsupported">Lucas</mark> met.');
  });

  it('falls back to another case only when the exact case is absent', () => {
    expect(highlight('The tower. the tower.', ['The tower']).html).toBe('<mark class="unsupported">The tower</mark>. the tower.');
    expect(highlight('THE TOWER fell.', ['The tower']).html).toBe('<mark class="unsupported">THE TOWER</mark> fell.');
  });

  it('matches a claim written with typographic quotes (as the LLM judge reads them) in a response with ASCII ones', () => {
    expect(highlight('He was called "the Iron Duke" by all.', ['He was called “the Iron Duke”']).html).toBe('<mark class="unsupported">He was called &quot;the Iron Duke&quot;</mark> by all.');
  });
});
