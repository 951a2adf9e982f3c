/**
 * The front door's "Releases" section: per service, each live release side by side — answers, first
 * seen, and the verdict against the baseline release with the flagged share of each metric next to the
 * baseline's — and the slice alerts firing, for the alerts list. Reads the slice monitor's last
 * evaluation only.
 * @module
 */
import type { ServiceReleases, SliceStatus } from '../slices/types.ts';
import { escapeHtml as h } from './layout.ts';

/** What the section reads (the slice monitor, in process or in the `ragwatch slices` role). */
export interface SliceView {
  releases(): ServiceReleases[];
  status(): SliceStatus[];
}

const pct = (k: number, n: number) => (n > 0 ? `${((100 * k) / n).toFixed(1)} %` : '–');
const VERDICT_CLASS = { worse: 'bad', no_worse: 'ok', inconclusive: 'meta' } as const;
const q = encodeURIComponent;

/** The alert lines of the slices firing (for the front door's alerts list). */
export function sliceAlertItems(firing: readonly SliceStatus[], ago: (ms: number) => string): string[] {
  return firing.map((s) => {
    const link = `/examples?metric=${q(s.metric)}&service=${q(s.service)}&${s.dimension}=${q(s.slice)}${s.runSinceMs ? `&since=${s.runSinceMs}` : ''}`;
    return `<li class="bad"><b>slice drop</b>: ${h(s.metric)} in <b>${h(s.dimension)}=${h(s.slice)}</b> of service <b>${h(s.service)}</b>: ${pct(s.runFlagged, s.runSamples)} flagged (${Number.isInteger(s.runFlagged) ? s.runFlagged : s.runFlagged.toFixed(1)} of ${s.runSamples}) vs ${s.referenceShare === null ? '–' : `${(s.referenceShare * 100).toFixed(1)} %`} in ${s.reference === 'own_baseline' ? 'its own baseline' : 'the rest of the service'}${s.firingSinceMs ? `, since ${ago(s.firingSinceMs)}` : ''} · <a href="${h(link)}">its answers</a></li>`;
  });
}

/** The section; `ago` formats a time relative to now. */
export function releasesSection(services: readonly ServiceReleases[], ago: (ms: number) => string): string {
  const title = '<h2>Releases <span class="meta">(each live release against the baseline release over the same period; <a href="/api/releases">/api/releases</a>, series ragwatch_release_verdict)</span></h2>';
  if (services.length === 0) return `<section id="releases">${title}<p class="meta">No release seen yet: set the resource attribute service.version in the service's OpenTelemetry SDK (docs/alerts.md).</p></section>`;
  const tables = services.map((s) => {
    const metrics = [...new Set(s.releases.flatMap((r) => (r.metrics ?? []).map((m) => `${m.metric} (${m.judge})`)))];
    const rows = s.releases.map((r) => {
      const verdict = r.verdict ? `<td class="${VERDICT_CLASS[r.verdict]}">${h(r.verdict)}</td>` : '<td class="meta">baseline</td>';
      const cells = metrics.map((name) => {
        const m = r.metrics?.find((x) => `${x.metric} (${x.judge})` === name);
        return m ? `<td class="${VERDICT_CLASS[m.verdict]}">${pct(m.candidate.flagged, m.candidate.n)} of ${m.candidate.n} <span class="meta">vs ${pct(m.baseline.flagged, m.baseline.n)} of ${m.baseline.n}</span></td>` : '<td class="meta">–</td>';
      });
      return `<tr><th scope="row">${h(r.release)}</th><td>${r.answers}</td><td>${h(ago(r.firstSeenMs))}</td>${verdict}${cells.join('')}</tr>`;
    });
    return `<h3>${h(s.service)} <span class="meta">baseline ${h(s.baseline)}</span></h3><table><tr><th>release</th><th>answers</th><th>first seen</th><th>verdict</th>${metrics.map((m) => `<th>${h(m)} flagged</th>`).join('')}</tr>${rows.join('')}</table>`;
  });
  return `<section id="releases">${title}${tables.join('')}</section>`;
}
