#!/usr/bin/env node
// Runs the compiled CLI when the package was built (npm pack / the container image),
// else the TypeScript sources directly (Node >= 22.18 strips types natively).
import { existsSync } from 'node:fs';

const built = new URL('../dist/cli.js', import.meta.url);
const { main } = await import(existsSync(built) ? built.href : new URL('../src/cli.ts', import.meta.url).href);
await main(process.argv.slice(2));
