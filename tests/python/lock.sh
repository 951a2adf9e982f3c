#!/usr/bin/env bash
# Regenerates the hashed locks envs/<env>/requirements.txt from envs/<env>/requirements.in with
# pip-tools (pip-compile --generate-hashes), for this Python (3.11 here and in CI). Needs PyPI;
# the tests and setup.sh then install exactly what the locks say.
#
#   tests/python/lock.sh             every environment
#   tests/python/lock.sh NAME...     only these
#   tests/python/lock.sh --upgrade NAME...   newest versions the .in pins allow
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${RAGWATCH_PYTHON:-python3}"
cache="${RAGWATCH_PYTHON_CACHE:-$HOME/.cache/ragwatch/python}"
export PIP_CACHE_DIR="$cache/pip" PIP_DISABLE_PIP_VERSION_CHECK=1
tools="$cache/tools/pip-tools-7.6.2"
if [ ! -x "$tools/bin/pip-compile" ]; then
  "$python" -m venv "$tools"
  "$tools/bin/python" -m pip install --quiet pip==26.3 pip-tools==7.6.2
fi
upgrade=()
if [ "${1:-}" = "--upgrade" ]; then upgrade=(--upgrade); shift; fi
if [ $# -gt 0 ]; then envs=("$@"); else envs=(); for d in "$here"/envs/*/; do envs+=("$(basename "$d")"); done; fi
for env in "${envs[@]}"; do
  (cd "$here/envs/$env" && "$tools/bin/pip-compile" --quiet --generate-hashes --strip-extras --allow-unsafe --no-header --no-emit-index-url "${upgrade[@]}" -o requirements.txt requirements.in)
  echo "locked $env"
done
