// The Node.js check of every ragwatch start (bin/ragwatch.js), in plain JavaScript that any Node
// parses: an older Node gets one clear line instead of a stack trace from TypeScript it cannot strip.
// npm only warns about `engines` (EBADENGINE), so this is where "Node >= 22.18" is enforced.

/** The oldest Node.js that runs ragwatch: native TypeScript type stripping and node:sqlite (package.json engines.node). */
export const MIN_NODE = '22.18.0';

/**
 * Why `version` (e.g. process.versions.node, "20.20.2") cannot run ragwatch, or undefined when it can.
 * @param {string} version
 * @returns {string | undefined}
 */
export function nodeVersionProblem(version) {
  const have = version.replace(/^v/, '').split('.').map((n) => Number.parseInt(n, 10));
  const need = MIN_NODE.split('.').map(Number);
  for (let i = 0; i < 3; i++) {
    const h = Number.isFinite(have[i]) ? have[i] : 0;
    if (h > need[i]) return undefined;
    if (h < need[i]) {
      return `ragwatch needs Node.js >= ${MIN_NODE}; this is Node.js ${version.replace(/^v/, '')}. In a clone, run it through npm (npm start, npm run demo, npx ragwatch): the scripts use the project's own Node 22 (the node devDependency). Elsewhere install Node.js 22 or newer (e.g. nvm install 22).`;
    }
  }
  return undefined;
}
