import { describe, expect, it } from 'vitest';

describe('runtime', () => {
  it('runs on Node >= 22 (the node devDependency is first on PATH for npm scripts)', () => {
    const major = Number(process.versions.node.split('.')[0]);
    expect(major).toBeGreaterThanOrEqual(22);
  });

  it('has native TypeScript type stripping (bin/ragwatch.js runs src/*.ts directly)', () => {
    const [major, minor] = process.versions.node.split('.').map(Number) as [number, number];
    expect(major > 22 || (major === 22 && minor >= 18)).toBe(true);
  });
});
