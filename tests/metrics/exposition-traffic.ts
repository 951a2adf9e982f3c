/** Scored traffic for the exposition tests: many services, routes and weights. */
import type { SampledTriplet } from '../../src/triplet.ts';

/** Routes the traffic spreads over. */
export const ROUTES = 50;

/** Triplet `i`: one in three ungrounded, 50 services, {@link ROUTES} routes, weights 1–4. */
export function triplet(i: number): SampledTriplet {
  const grounded = i % 3 !== 0;
  return {
    id: `t${i}`,
    traceId: `trace-${i.toString(16).padStart(8, '0')}`,
    spanId: `s${i}`,
    service: `svc-${i % 50}`,
    route: `/route-${i % ROUTES}`,
    timestamp: new Date().toISOString(),
    query: 'When was the Chimnabai Clock Tower completed?',
    sources: [{ content: 'The Chimnabai Clock Tower was completed in 1896.' }],
    response: grounded ? 'The Chimnabai Clock Tower was completed in 1896.' : 'It was completed in 1856 by Napoleon.',
    latency: { durationMs: 10 },
    convention: 'openinference',
    sampling: { weight: 1 + (i % 4), stratum: 'default', rule: 'test' },
  };
}

/** The exposition without prom-client's default process metric families (promtool flags their names). */
export function ownFamilies(text: string): string {
  return text
    .split('\n\n')
    .filter((block) => !/^# HELP ragwatch_process_/.test(block))
    .join('\n\n');
}
