#!/usr/bin/env bash
# Creates (or reuses) one virtual environment per instrumentation set in tests/python/envs/, outside
# the clone: ~/.cache/ragwatch/python/venvs/<env>-<first 16 hex of the lock's sha256>/.
#
# Each lock (envs/<env>/requirements.txt, made by tests/python/lock.sh) pins every package with its
# hashes: pip checks each download (--require-hashes), takes wheels (a package published only as
# source, listed in envs/<env>/source-only, is built from its checked sdist; nothing is compiled) and
# shares downloads between environments through one wheelhouse (~/.cache/ragwatch/python/wheels). An
# environment whose lock is unchanged is reused as it is. The tests need no network at run time.
#
#   tests/python/setup.sh            every environment
#   tests/python/setup.sh NAME...    only these (e.g. openinference)
#
# RAGWATCH_PYTHON: the interpreter (default python3; 3.10 or newer).
# RAGWATCH_PYTHON_CACHE: the cache folder (default ~/.cache/ragwatch/python).
# tests/helpers/python.ts finds the environments by the same rule.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${RAGWATCH_PYTHON:-python3}"
cache="${RAGWATCH_PYTHON_CACHE:-$HOME/.cache/ragwatch/python}"
export PIP_CACHE_DIR="$cache/pip" PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python 3.10 or newer is needed, found " + sys.version)'
pyversion="$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"

if [ $# -gt 0 ]; then
  envs=("$@")
else
  envs=()
  for d in "$here"/envs/*/; do envs+=("$(basename "$d")"); done
fi
mkdir -p "$cache/venvs"
# One setup at a time per cache (two CI steps or worktrees sharing ~/.cache).
exec 9>"$cache/.setup.lock"
flock 9

for env in "${envs[@]}"; do
  lock="$here/envs/$env/requirements.txt"
  [ -f "$lock" ] || { echo "setup.sh: no lock file $lock" >&2; exit 2; }
  key="$(sha256sum "$lock" | cut -c1-16)"
  venv="$cache/venvs/$env-$key"
  # Environments of older locks of this set are removed when half-made or unused for a week (the
  # cache stays bounded; another checkout on an older lock makes its own again).
  for old in "$cache/venvs/$env"-*; do
    [ "$old" = "$venv" ] || [ ! -d "$old" ] && continue
    if [ ! -f "$old/.ragwatch-ready" ] || [ -n "$(find "$old/.ragwatch-ready" -mtime +7)" ]; then rm -rf "$old"; fi
  done
  # The marker is written last: a half-made environment (interrupted install) is made again.
  if [ -f "$venv/.ragwatch-ready" ] && [ "$(cat "$venv/.ragwatch-ready")" = "$pyversion" ]; then
    touch "$venv/.ragwatch-ready"
    echo "python env $env: reused $venv"
    continue
  fi
  started=$SECONDS
  rm -rf "$venv"
  "$python" -m venv "$venv"
  # Wheels only, except the few packages published as source alone (envs/<env>/source-only, one name
  # a line): those are built with the environment's own setuptools, no build download.
  source_only=()
  if [ -f "$here/envs/$env/source-only" ]; then
    while read -r name; do [ -n "$name" ] && source_only+=(--no-binary "$name"); done < <(grep -v '^#' "$here/envs/$env/source-only")
    # Their build tools come from the lock too, hashed, installed first.
    awk '/^[a-z]/ { keep = ($0 ~ /^(setuptools|wheel)==/) } keep' "$lock" > "$venv/build-tools.txt"
    "$venv/bin/python" -m pip install --quiet --require-hashes --no-deps --only-binary :all: -r "$venv/build-tools.txt"
  fi
  # Every file goes through one wheelhouse shared by the environments ($cache/wheels; the registry's
  # answers are not cacheable, so pip's own HTTP cache keeps nothing): a file already there is not
  # downloaded again. Hashes are checked on download and again on install.
  "$venv/bin/python" -m pip download --quiet --require-hashes --no-deps --no-build-isolation --only-binary :all: "${source_only[@]}" -d "$cache/wheels" -r "$lock"
  "$venv/bin/python" -m pip install --quiet --require-hashes --no-deps --no-build-isolation --no-index --find-links "$cache/wheels" --only-binary :all: "${source_only[@]}" -r "$lock"
  "$venv/bin/python" -m pip check
  echo "$pyversion" > "$venv/.ragwatch-ready"
  echo "python env $env: created $venv in $((SECONDS - started)) s"
done
