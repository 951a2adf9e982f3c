#!/usr/bin/env bash
# Builds ragwatch's test OpenTelemetry Collector (otelcol-ragwatch) with the OpenTelemetry Collector
# Builder from builder-config.yaml, or reuses the binary cached for that manifest.
#
#   scripts/collector/build.sh            build or reuse; prints the binary's path on the last line
#   scripts/collector/build.sh --path     prints where the binary for this manifest lives (no build)
#   scripts/collector/build.sh --update-sums
#                                         re-resolves the modules and rewrites go.sum (after a version bump)
#
# The cache sits outside the clone, keyed by the hash of builder-config.yaml and go.sum:
#   ${RAGWATCH_CACHE_DIR:-~/.cache/ragwatch}/collector/<hash>/otelcol-ragwatch
# tests/helpers/otel-collector.ts computes the same key. Modules come from the Go module proxy only and
# are checked against the committed go.sum (a changed hash stops the build). See scripts/collector/README.md.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
manifest="$here/builder-config.yaml"
sums="$here/go.sum"
# The builder's version is the manifest's core version: one release for core, builder and contrib.
builder_version="$(sed -n 's#^ *- gomod: go.opentelemetry.io/collector/receiver/otlpreceiver \(v[0-9.]*\)$#\1#p' "$manifest")"
[ -n "$builder_version" ] || { echo "build.sh: cannot read the core version from $manifest" >&2; exit 1; }

cache_root="${RAGWATCH_CACHE_DIR:-$HOME/.cache/ragwatch}/collector"
key="$(cat "$manifest" "$sums" | sha256sum | cut -c1-16)"
out_dir="$cache_root/$key"
binary="$out_dir/otelcol-ragwatch"

mode="${1:-build}"
case "$mode" in
  --path) echo "$binary"; exit 0 ;;
  build | --update-sums) ;;
  *) echo "usage: $0 [--path | --update-sums]" >&2; exit 2 ;;
esac

if [ "$mode" = build ] && [ -x "$binary" ] && "$binary" --version >/dev/null 2>&1; then
  echo "otelcol-ragwatch: reusing the cached build for manifest $key" >&2
  echo "$binary"
  exit 0
fi

command -v go >/dev/null || { echo "build.sh: go is not installed (Go >= 1.25 is needed)" >&2; exit 1; }
export CGO_ENABLED=0
# -mod=mod: the builder edits go.mod; go.sum (copied in below) still checks every module's hash.
export GOFLAGS="-mod=mod -buildvcs=false"
# The Go module proxy alone (no direct fetches from source hosts).
export GOPROXY="${GOPROXY_RAGWATCH:-https://proxy.golang.org}"

builder_dir="$cache_root/builder-$builder_version"
builder="$builder_dir/builder"
if [ ! -x "$builder" ]; then
  echo "otelcol-ragwatch: installing the Collector Builder $builder_version" >&2
  mkdir -p "$builder_dir"
  GOBIN="$builder_dir" go install -trimpath -ldflags='-s -w' "go.opentelemetry.io/collector/cmd/builder@$builder_version"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/otelcol-ragwatch.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp "$manifest" "$work/builder-config.yaml"
mkdir -p "$work/build"
if [ "$mode" = build ]; then
  cp "$sums" "$work/build/go.sum"
else
  # sum.golang.org has no entry for the loadbalancing exporter at this release (the proxy serves the
  # module): its hash is recorded from the proxy once here, then checked from go.sum on every build.
  export GONOSUMDB="github.com/open-telemetry/opentelemetry-collector-contrib/exporter/loadbalancingexporter"
fi
start=$(date +%s)
echo "otelcol-ragwatch: building $builder_version (manifest $key); a cold build takes minutes" >&2
skip=()
[ "$mode" = --update-sums ] && skip=(--skip-compilation)
(cd "$work" && "$builder" --config builder-config.yaml --ldflags='-s -w' "${skip[@]}" >"$work/builder.log" 2>&1) || {
  grep -v '^go: downloading' "$work/builder.log" | tail -40 >&2
  echo "build.sh: the Collector Builder failed (log above)" >&2
  exit 1
}
if [ "$mode" = --update-sums ]; then
  cp "$work/build/go.sum" "$sums"
  echo "otelcol-ragwatch: go.sum rewritten ($(wc -l <"$sums") lines); run build.sh again to build from it" >&2
  exit 0
fi
if ! cmp -s "$sums" "$work/build/go.sum"; then
  echo "build.sh: the build needed modules not in scripts/collector/go.sum; run build.sh --update-sums and commit go.sum" >&2
  exit 1
fi
mkdir -p "$out_dir"
# The builder compiles with `go build -trimpath -ldflags='-s -w'` (its defaults, the flag above keeps the ldflags explicit).
cp "$work/build/otelcol-ragwatch" "$out_dir/otelcol-ragwatch.tmp"
mv "$out_dir/otelcol-ragwatch.tmp" "$binary"
echo "otelcol-ragwatch: built in $(($(date +%s) - start)) s" >&2
echo "$binary"
