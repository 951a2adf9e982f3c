#!/usr/bin/env bash
# A real Phoenix server (arize-phoenix from PyPI) for the span-annotation writer's integration test
# (tests/evaluation-export/phoenix.integration.test.ts). Installs the pinned, hashed requirements
# (requirements.txt, compiled from requirements.in) into a virtualenv cached outside the clone, keyed by
# the hash of requirements.txt: a second run with the same pins does nothing. Prints the venv's path.
#
#   bash tests/python/phoenix/setup.sh            # → ~/.cache/ragwatch/python/phoenix-<hash>
#
# To change the pins: edit requirements.in, then
#   uv pip compile --generate-hashes --python-version 3.11 --python-platform x86_64-manylinux_2_28 \
#     requirements.in -o requirements.txt
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${PYTHON:-python3}"
key="$(sha256sum "$here/requirements.txt" | cut -c1-16)"
venv="${RAGWATCH_CACHE:-$HOME/.cache/ragwatch}/python/phoenix-$key"
if [ -f "$venv/.complete" ]; then
  echo "$venv"
  exit 0
fi
rm -rf "$venv"
mkdir -p "$(dirname "$venv")"
"$python" -m venv "$venv" >&2
# --require-hashes: every distribution must match a hash in requirements.txt; --no-deps: the file is the whole closure.
"$venv/bin/pip" install --quiet --disable-pip-version-check --no-input --require-hashes --no-deps --only-binary=:all: -r "$here/requirements.txt" >&2
"$venv/bin/python" -c 'import phoenix, phoenix.server.main' >&2
touch "$venv/.complete"
echo "$venv"
