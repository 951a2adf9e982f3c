#!/usr/bin/env bash
# A real OpenAI-compatible server for the LLM judge's integration tests: llama.cpp's server from
# llama-cpp-python[server] (tests/helpers/llama-server.ts starts it with the test model from
# scripts/models/fetch-test-model.sh). Prints the virtualenv's path on its last line.
#
#   bash tests/python/llama-server/setup.sh     # → ~/.cache/ragwatch/python/venvs/llama-server-<key>
#
# llama-cpp-python is published as an sdist only. Its build (10–20 min on 2 cores) is made once and
# cached: the wheel goes to ~/.cache/ragwatch/python/built/llama-server-<key>/, keyed by the lock's hash
# and this machine's CPU flags (the build is tuned for the CPU it runs on: GGML_NATIVE=ON), so CI
# builds it once per lock and CPU kind, not every run. Every downloaded file is checked against the hashes
# in requirements.txt (--require-hashes): the sdist, its build tools (installed first; no build
# isolation, so nothing unhashed is fetched) and the server's dependencies. The built wheel is
# recorded with its sha256 next to it and checked before reuse.
#
# RAGWATCH_PYTHON: the interpreter (default python3; 3.10 or newer).
# RAGWATCH_PYTHON_CACHE: the cache folder (default ~/.cache/ragwatch/python).
# RAGWATCH_LLAMA_BUILD_JOBS: parallel build jobs (default: the number of cores).
#
# To change the pins: edit requirements.in, then (pip-tools 7.5, pip 25.1)
#   pip-compile --generate-hashes --strip-extras --allow-unsafe --no-header --no-emit-index-url \
#     -o requirements.txt requirements.in
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
python="${RAGWATCH_PYTHON:-python3}"
cache="${RAGWATCH_PYTHON_CACHE:-$HOME/.cache/ragwatch/python}"
export PIP_CACHE_DIR="$cache/pip" PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1
lock="$here/requirements.txt"
pin="llama-cpp-python==0.3.16"

"$python" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 10) else "Python 3.10 or newer is needed, found " + sys.version)'
pyversion="$("$python" -c 'import sys; print("%d.%d.%d" % sys.version_info[:3])')"
cpu="$(uname -m) $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null || true)"
key="$( (cat "$lock"; echo "$cpu"; echo "$pyversion") | sha256sum | cut -c1-16)"
venv="$cache/venvs/llama-server-$key"
built="$cache/built/llama-server-$key"
mkdir -p "$cache/venvs" "$cache/built"
exec 9>"$cache/.llama-server.lock"
flock 9

if [ -f "$venv/.ragwatch-ready" ]; then
  touch "$venv/.ragwatch-ready"
  echo "$venv"
  exit 0
fi
started=$SECONDS
rm -rf "$venv"
"$python" -m venv "$venv"
pip=("$venv/bin/python" -m pip)
# Build tools first (wheels, hashed), then the rest of the closure except the sdist.
awk '/^[a-z]/ { keep = ($0 ~ /^(scikit-build-core|cmake|ninja|packaging|pathspec)==/) } keep' "$lock" > "$venv/build-tools.txt"
awk '/^[a-z]/ { keep = ($0 !~ /^llama-cpp-python==/) } keep' "$lock" > "$venv/runtime.txt"
awk '/^[a-z]/ { keep = ($0 ~ /^llama-cpp-python==/) } keep' "$lock" > "$venv/sdist.txt"
"${pip[@]}" install --quiet --require-hashes --no-deps --only-binary :all: -r "$venv/build-tools.txt" >&2
"${pip[@]}" install --quiet --require-hashes --no-deps --only-binary :all: -r "$venv/runtime.txt" >&2

wheel="$(ls "$built"/llama_cpp_python-*.whl 2>/dev/null | head -1 || true)"
if [ -n "$wheel" ] && ! (cd "$built" && sha256sum --quiet -c wheel.sha256 >&2); then
  echo "llama-server setup: the cached wheel does not match its recorded sha256; building again" >&2
  rm -rf "$built"; mkdir -p "$built"; wheel=""
fi
if [ -z "$wheel" ]; then
  echo "llama-server setup: building $pin from its sdist (once per lock and CPU kind; 10–20 min on 2 cores)" >&2
  build_started=$SECONDS
  tmp="$(mktemp -d "$cache/built/.tmp-XXXXXX")"
  # The sdist is checked against the lock's hash on download; the wheel is built from that file.
  "${pip[@]}" download --quiet --require-hashes --no-deps --no-binary :all: -d "$tmp/sdist" -r "$venv/sdist.txt" >&2
  PATH="$venv/bin:$PATH" \
    CMAKE_BUILD_PARALLEL_LEVEL="${RAGWATCH_LLAMA_BUILD_JOBS:-$(nproc)}" \
    CMAKE_ARGS="-DGGML_NATIVE=ON -DLLAMA_CURL=OFF -DGGML_OPENMP=OFF -DLLAMA_BUILD_TESTS=OFF -DLLAMA_BUILD_EXAMPLES=OFF" \
    "${pip[@]}" wheel --quiet --no-deps --no-build-isolation --no-index -w "$tmp/wheel" "$tmp"/sdist/llama_cpp_python-*.tar.gz >&2
  mkdir -p "$built"
  mv "$tmp"/wheel/llama_cpp_python-*.whl "$built/"
  rm -rf "$tmp"
  (cd "$built" && sha256sum llama_cpp_python-*.whl > wheel.sha256)
  wheel="$(ls "$built"/llama_cpp_python-*.whl | head -1)"
  echo "llama-server setup: built $(basename "$wheel") in $((SECONDS - build_started)) s" >&2
fi
"${pip[@]}" install --quiet --no-deps --no-index "$wheel" >&2
"${pip[@]}" check >&2
"$venv/bin/python" -c 'import llama_cpp, llama_cpp.server.app' >&2
echo "$pyversion" > "$venv/.ragwatch-ready"
echo "llama-server setup: venv ready in $((SECONDS - started)) s" >&2
echo "$venv"
