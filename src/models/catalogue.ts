/**
 * The models ragwatch knows by name. Each was measured as a judge on HaluEval QA (docs/judges.md,
 * ../shared/reference/local-models.md); smaller ones measured worse and are left out. A model not
 * listed here can still be used: `ragwatch models add FILE --name N` registers any instruct GGUF in
 * ChatML format (a judge whose quality you then measure yourself).
 * @module
 */
import type { CatalogueModel } from './types.ts';

/** The default local judge model. */
export const DEFAULT_LOCAL_MODEL = 'qwen2.5-coder-1.5b-instruct';

/** Every catalogued model. */
export const MODEL_CATALOGUE: readonly CatalogueModel[] = [
  {
    name: DEFAULT_LOCAL_MODEL,
    description: 'Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M (1.1 GB; ≈ 2.4 GB RSS; CPU)',
    url: 'https://huggingface.co/Qwen/Qwen2.5-Coder-1.5B-Instruct-GGUF/resolve/main/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
    file: 'qwen2.5-coder-1.5b-instruct-q4_k_m.gguf',
    bytes: 1_117_320_768,
    sha256: 'cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046',
    licence: 'Apache-2.0',
    format: 'chatml',
  },
];

/** The catalogue entry named `name`, if any. */
export function catalogueModel(name: string): CatalogueModel | undefined {
  return MODEL_CATALOGUE.find((m) => m.name === name);
}
