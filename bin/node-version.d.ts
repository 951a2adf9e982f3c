/** The oldest Node.js that runs ragwatch (package.json engines.node). */
export declare const MIN_NODE: string;
/** Why `version` cannot run ragwatch, or undefined when it can. */
export declare function nodeVersionProblem(version: string): string | undefined;
