/**
 * Models as files (DESIGN §8): a GGUF with a name, a source, a size, a sha256, a licence and a prompt
 * format, pulled from its publisher or added from a file, verified before it loads, kept in a cache
 * directory with a registry beside it.
 * @module
 */

/** Chat formats the local judge can prompt. */
export type ModelPromptFormat = 'chatml';

/** One model of the catalogue: everything needed to fetch it and check it. */
export interface CatalogueModel {
  /** The name `judge.local.model` and `ragwatch models pull` take. */
  name: string;
  /** One line for `ragwatch models list`. */
  description: string;
  /** Where the publisher serves the file (the model hub; followed through redirects). */
  url: string;
  /** File name in the cache. */
  file: string;
  bytes: number;
  sha256: string;
  /** The publisher's licence (SPDX id where there is one). */
  licence: string;
  format: ModelPromptFormat;
}

/** A model file in the cache, as the registry records it. */
export interface CachedModel {
  name: string;
  /** Absolute path of the GGUF. */
  path: string;
  bytes: number;
  sha256: string;
  format: ModelPromptFormat;
  licence: string;
  /** `pull` (from `source`) or `add` (from a file the user had). */
  origin: 'pull' | 'add';
  source: string;
  /** ISO time it was verified and registered. */
  verifiedAt: string;
  /** The file's mtime when verified: a file changed since is hashed again before it loads. */
  mtimeMs: number;
}
