/** Triplet builders for judge tests. */
import type { SampledTriplet } from '../../../src/triplet.ts';

let n = 0;

/** A sampled triplet with the given texts. */
export function triplet(query: string, sources: string[], response: string): SampledTriplet {
  n++;
  return {
    id: `t${n}`,
    traceId: `trace${n}`,
    spanId: `span${n}`,
    service: 'svc',
    timestamp: new Date(0).toISOString(),
    query,
    sources: sources.map((content) => ({ content })),
    response,
    latency: { durationMs: 1 },
    convention: 'custom',
    sampling: { weight: 1, stratum: 'default', rule: 'rate' },
  };
}

export const CLOCK_QUERY = 'When was the Chimnabai Clock Tower completed, and who was it named after?';
export const CLOCK_SOURCES = [
  'The Chimnabai Clock Tower is in the Raopura area of Vadodara, Gujarat, India. It was completed in 1896 and named in memory of Chimnabai I (1864–1885), a queen and first wife of Sayajirao Gaekwad III of Baroda State. It was built in the Indo-Saracenic style.',
  'The tower was inaugurated by Mir Kamaluddin Hussainkhan, the last Nawab of Baroda. It was a stop for horse-drawn trams. The tower was funded by the citizens of Baroda State. In 2017 the tenants were ordered to vacate it. Its mechanism was replaced by a DC motor.',
];
export const CLOCK_RESPONSE =
  'The Chimnabai Clock Tower was completed in 1896. It was named after Chimnabai I, who was a queen and the first wife of Sayajirao Gaekwad III of Baroda State. The construction of clock tower was completed in 1896.';
