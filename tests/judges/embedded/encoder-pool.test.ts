import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { getPriority, tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RagwatchError } from '../../../src/errors.ts';
import { EncoderPool, WORKER_NICE_INCREMENT, balanceByLength } from '../../../src/judges/embedded/encoder-pool.ts';
import { loadLocalEncoder } from '../../../src/judges/embedded/local-model.ts';
import type { SentenceEncoder } from '../../../src/judges/embedded/encoder.ts';

const FAKE = new URL('../../fakes/encoder-worker.ts', import.meta.url);
const code = (err: unknown) => (err instanceof RagwatchError ? err.code : String(err));

describe('balanceByLength', () => {
  it('puts every text in exactly one group, longest first to the lightest group', () => {
    const texts = ['a'.repeat(90), 'b'.repeat(10), 'c'.repeat(50), 'd'.repeat(40), 'e'.repeat(30), 'f'.repeat(60)];
    const groups = balanceByLength(texts, 2);
    expect(groups).toHaveLength(2);
    expect(groups.flat().sort()).toEqual([0, 1, 2, 3, 4, 5]);
    const chars = groups.map((g) => g.reduce((n, i) => n + texts[i]!.length, 0));
    expect(chars.sort()).toEqual([140, 140]);
  });

  it('never makes more groups than texts, nor empty ones', () => {
    expect(balanceByLength(['only'], 4)).toEqual([[0]]);
    expect(balanceByLength([], 2)).toEqual([]);
  });
});

describe('workers in processes started with any options', () => {
  const POOL = new URL('../../../src/judges/embedded/encoder-pool.ts', import.meta.url).href;
  const script = `const { EncoderPool } = await import(${JSON.stringify(POOL)});
const pool = new EncoderPool({ threads: 1, workerUrl: new URL(${JSON.stringify(FAKE.href)}) });
const [v] = await pool.embed(['abc']);
console.log(v[0]);
await pool.shutdown();`;
  // As `npm start` and the image run (a V8 flag), and as the test harnesses start roles (`-e`, both).
  it.each([
    [['--max-semi-space-size=4']],
    [['--input-type=module', '-e']],
    [['--max-semi-space-size=4', '--input-type=module', '-e']],
  ])('node %j', async (options) => {
    let file: string | undefined;
    if (!options.includes('-e')) {
      file = join(mkdtempSync(join(tmpdir(), 'ragwatch-pool-')), 'main.mjs');
      writeFileSync(file, script);
    }
    const child = spawnSync(process.execPath, [...options, file ?? script], { encoding: 'utf8', timeout: 30_000 });
    if (file) rmSync(dirname(file), { recursive: true, force: true });
    expect(child.stderr).toBe('');
    expect(child.stdout.trim()).toBe('3');
  });
});

describe('EncoderPool with the bundled model', () => {
  const pool = new EncoderPool({ threads: 2 });
  let local: SentenceEncoder;
  beforeAll(async () => {
    await pool.init();
    local = await loadLocalEncoder();
  }, 120_000);
  afterAll(() => pool.shutdown());

  it('embeds exactly like the model on this thread, in input order, across both workers', async () => {
    const texts = ['The clock tower opened in 1896.', '', 'Its bells ring every hour in Vadodara.', 'Who built it?', 'The museum next to the tower is free on Sundays.'];
    const [ours, theirs] = [await pool.embed(texts), await local.embed(texts)];
    expect(ours).toHaveLength(texts.length);
    for (const [i, v] of ours.entries()) {
      expect(v).toHaveLength(512);
      for (const [k, x] of v.entries()) expect(x).toBeCloseTo(theirs[i]![k]!, 6);
    }
    expect(ours[1]!.every((x) => x === 0)).toBe(true);
    expect(await pool.embed([])).toEqual([]);
  }, 60_000);

  // Linux keeps nice per thread: /proc/self/task/<tid>/stat's 19th field is each thread's.
  it.runIf(process.platform === 'linux')('runs its model threads nicer than the thread that started them', () => {
    const nice = readdirSync('/proc/self/task').map((tid) => Number(readFileSync(`/proc/self/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]));
    // (Run at nice 19 already, a test process has nothing nicer to give: the workers stay at 19.)
    const expected = Math.min(19, getPriority() + WORKER_NICE_INCREMENT);
    expect(nice.filter((n) => n === expected).length).toBeGreaterThanOrEqual(2);
    expect(nice).toContain(getPriority());
    if (getPriority() < 19) expect(nice.filter((n) => n === getPriority()).length).toBeLessThan(nice.length);
  });

  it('does not block the event loop while the model runs', async () => {
    const texts = Array.from({ length: 16 }, (_, i) => `Sentence ${i} says the tower in the city of Vadodara was opened in ${1800 + i} and rings hourly.`);
    const maxTimerGapMs = async (work: () => Promise<unknown>) => {
      let last = performance.now();
      let max = 0;
      const timer = setInterval(() => {
        const now = performance.now();
        max = Math.max(max, now - last);
        last = now;
      }, 1);
      await work();
      clearInterval(timer);
      return Math.max(max, performance.now() - last);
    };
    const onThisThread = await maxTimerGapMs(() => local.embed(texts));
    const pooled = await maxTimerGapMs(() => pool.embed(texts));
    // On this thread one model call (≈ 20–100 ms) holds the loop; the pool only posts messages.
    expect(onThisThread).toBeGreaterThan(15);
    expect(pooled).toBeLessThan(onThisThread / 2);
  }, 60_000);
});

describe('EncoderPool failures', () => {
  it('fails the calls of a worker that dies, and replaces it on the next call', async () => {
    const pool = new EncoderPool({ threads: 1, workerUrl: FAKE });
    await pool.init();
    await expect(pool.embed(['die'])).rejects.toSatisfy((err) => code(err) === 'RAGWATCH_JUDGE_FAILED' && /died/.test(String(err)));
    const [v] = await pool.embed(['four']);
    expect(v![0]).toBe(4);
    await pool.shutdown();
  });

  it('reports a model error as a failed call, and keeps the worker', async () => {
    const pool = new EncoderPool({ threads: 1, workerUrl: FAKE });
    await expect(pool.embed(['error'])).rejects.toSatisfy((err) => code(err) === 'RAGWATCH_JUDGE_FAILED' && /scripted model error/.test(String(err)));
    expect((await pool.embed(['ab', 'abc'])).map((v) => v[511])).toEqual([2, 3]);
    await pool.shutdown();
  });

  it('reports a worker that cannot load the model as RAGWATCH_MODEL_LOAD_FAILED', async () => {
    const failing = new URL(`data:text/javascript,${encodeURIComponent("import { parentPort } from 'node:worker_threads'; parentPort.postMessage({ id: 0, error: 'no model here' });")}`);
    const pool = new EncoderPool({ threads: 2, workerUrl: failing });
    await expect(pool.init()).rejects.toSatisfy((err) => code(err) === 'RAGWATCH_MODEL_LOAD_FAILED' && /no model here/.test(String(err)));
    await pool.shutdown();
  });

  it('shuts down idempotently: pending and later calls fail with RAGWATCH_SHUTDOWN', async () => {
    const pool = new EncoderPool({ threads: 2, workerUrl: FAKE });
    await pool.init();
    // Outcomes caught at once: the calls fail while shutdown() is awaited.
    const pending = pool.embed(['hang']).catch((err: unknown) => err);
    await new Promise((resolve) => setTimeout(resolve, 50));
    const justCalled = pool.embed(['ab']).catch((err: unknown) => err);
    await Promise.all([pool.shutdown(), pool.shutdown()]);
    expect(code(await pending)).toBe('RAGWATCH_SHUTDOWN');
    expect(code(await justCalled)).toBe('RAGWATCH_SHUTDOWN');
    await expect(pool.embed(['x'])).rejects.toSatisfy((err) => code(err) === 'RAGWATCH_SHUTDOWN');
  });
});
