#!/usr/bin/env -S node --max-semi-space-size=4
// Runs the compiled CLI when the package was built (npm pack / the container image),
// else the TypeScript sources directly (Node >= 22.18 strips types natively).
import { existsSync } from 'node:fs';
import { setFlagsFromString } from 'node:v8';
import { nodeVersionProblem } from './node-version.js';

const tooOld = nodeVersionProblem(process.versions.node);
if (tooOld) {
  process.stderr.write(`${tooOld}\n`);
  process.exit(1);
}

// Bound the V8 heap's headroom: by default V8 lets the old generation grow to up to 4× its live size
// before a full GC when GC looks cheap, and ingest promotes every buffered span (they wait
// capture.traceIdleMs for their trace), so under overload RSS grew by ~180 MB of garbage. Growing
// by 10% of the live size instead costs ≈ 3% of a core in full GCs at that load (docs/performance.md).
// An explicit `node --heap-growing-percent=N bin/ragwatch.js` wins. The flag is read at every GC.
//
// The young generation is bounded from the command line instead (V8 sizes it when the process
// starts): `--max-semi-space-size=4` (MiB; V8's default lets it grow to 16) is on the shebang, the
// `npm start` script and the image's entrypoint. Under the ingest overload it keeps ≈ 15 MB of RSS
// growth and ≈ 55 MB of baseline (main thread plus embedding workers) with no measured cost in
// throughput (docs/performance.md).
const HEAP_GROWING_PERCENT = 10;
if (!process.execArgv.some((a) => a.startsWith('--heap-growing-percent') || a.startsWith('--heap_growing_percent'))) {
  setFlagsFromString(`--heap-growing-percent=${HEAP_GROWING_PERCENT}`);
}

const built = new URL('../dist/cli.js', import.meta.url);
const { main } = await import(existsSync(built) ? built.href : new URL('../src/cli.ts', import.meta.url).href);
await main(process.argv.slice(2));
