#!/usr/bin/env bash
# The peer bench's Python tools, each in its own virtualenv cached outside the clone and keyed by its
# lock's hash (a second run with the same pins does nothing):
#   phoenix   arize-phoenix, the evaluation-export test's pinned environment (tests/python/phoenix/setup.sh)
#   ragas     bench/peers/python/ragas/requirements.txt     → ~/.cache/ragwatch/python/venvs/peer-ragas-<key>
#   deepeval  bench/peers/python/deepeval/requirements.txt  → ~/.cache/ragwatch/python/venvs/peer-deepeval-<key>
# Every file is checked against the lock's hashes (--require-hashes), wheels only, no dependency
# resolution at install time (--no-deps: the lock is the whole closure). Nothing of theirs enters the repo.
# Prints `NAME PATH` per environment on stdout (progress on stderr).
#
#   bash bench/peers/setup.sh                  # all three
#   bash bench/peers/setup.sh ragas deepeval   # only these
#
# To change a pin: edit python/<env>/requirements.in, then with pip-tools 7.6.2 (tests/python/lock.sh makes it):
#   pip-compile --generate-hashes --strip-extras --allow-unsafe --no-header --no-emit-index-url \
#     -o requirements.txt requirements.in
# RAGWATCH_PYTHON: the interpreter (default python3; 3.10 or newer). RAGWATCH_PYTHON_CACHE: the cache folder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
python="${RAGWATCH_PYTHON:-python3}"
cache="${RAGWATCH_PYTHON_CACHE:-$HOME/.cache/ragwatch/python}"
export PIP_CACHE_DIR="$cache/pip" PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
if [ $# -gt 0 ]; then envs=("$@"); else envs=(phoenix ragas deepeval); fi
mkdir -p "$cache/venvs"
# One setup at a time per cache (two benches or checkouts sharing ~/.cache).
exec 9>"$cache/.peers-setup.lock"
flock 9
for env in "${envs[@]}"; do
  if [ "$env" = phoenix ]; then
    echo "phoenix $(PYTHON="$python" bash "$root/tests/python/phoenix/setup.sh" | tail -1)"
    continue
  fi
  lock="$here/python/$env/requirements.txt"
  [ -f "$lock" ] || { echo "bench/peers/setup.sh: no lock file $lock" >&2; exit 2; }
  venv="$cache/venvs/peer-$env-$(sha256sum "$lock" | cut -c1-16)"
  # Environments of older locks of this tool are removed when half-made or unused for a week.
  for old in "$cache/venvs/peer-$env"-*; do
    [ "$old" = "$venv" ] || [ ! -d "$old" ] && continue
    if [ ! -f "$old/.ragwatch-ready" ] || [ -n "$(find "$old/.ragwatch-ready" -mtime +7)" ]; then rm -rf "$old"; fi
  done
  # The marker is written last: a half-made environment (interrupted install) is made again.
  if [ -f "$venv/.ragwatch-ready" ]; then
    touch "$venv/.ragwatch-ready"
  else
    started=$SECONDS
    rm -rf "$venv"
    "$python" -m venv "$venv"
    "$venv/bin/python" -m pip install --quiet --require-hashes --no-deps --only-binary :all: -r "$lock" >&2
    "$venv/bin/python" -m pip check >&2
    touch "$venv/.ragwatch-ready"
    echo "peer env $env: created $venv in $((SECONDS - started)) s" >&2
  fi
  echo "$env $venv"
done
