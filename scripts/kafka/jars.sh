#!/usr/bin/env bash
# Resolves the Apache Kafka broker jars pinned in scripts/kafka/<version>/pom.xml from Maven Central
# into a cache outside the clone and prints the libs directory:
#
#   bash scripts/kafka/jars.sh [VERSION]      # VERSION defaults to scripts/kafka/DEFAULT_VERSION
#   bash scripts/kafka/jars.sh --all          # every pinned version (what .ci/run installs)
#
# Cache: ${RAGWATCH_CACHE_DIR:-${XDG_CACHE_HOME:-~/.cache}/ragwatch}/kafka/<version>/libs, reused when it
# holds exactly the jars of <version>/libs.sha256 with those hashes. Maven runs with --strict-checksums
# (and the pom's checksumPolicy "fail"); every jar is then checked against libs.sha256, and a jar that
# is missing, extra or different fails the run. `--update-sums` rewrites libs.sha256 from a fresh
# resolution (only when deliberately moving a pin).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
cache_root=${RAGWATCH_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/ragwatch}/kafka

update_sums=false
args=()
for a in "$@"; do
  case "$a" in
    --update-sums) update_sums=true ;;
    --all) for d in "$here"/*/pom.xml; do args+=("$(basename "$(dirname "$d")")"); done ;;
    *) args+=("$a") ;;
  esac
done
[ ${#args[@]} -gt 0 ] || args=("$(cat "$here/DEFAULT_VERSION")")

# The jar names in a directory and in a sums file, one per line, sorted.
listed() { awk '{print $2}' "$1" | sed 's/^\*//' | sort; }
present() { (cd "$1" && ls -1 -- *.jar) | sort; }

verify() { # dir sums
  [ "$(present "$1")" = "$(listed "$2")" ] || { echo "jar set in $1 differs from $2:" >&2; diff <(listed "$2") <(present "$1") >&2 || true; return 1; }
  (cd "$1" && sha256sum --quiet --strict -c "$2")
}

resolve() {
  local version=$1 pom="$here/$1/pom.xml" sums="$here/$1/libs.sha256"
  [ -f "$pom" ] || { echo "no pinned pom for Kafka $version; pinned: $(cd "$here" && ls -d */ | tr -d / | tr '\n' ' ')" >&2; return 2; }
  local dir="$cache_root/$version" libs="$cache_root/$version/libs"
  if ! $update_sums && [ -f "$libs/.complete" ] && verify "$libs" "$sums" >/dev/null 2>&1; then
    echo "$libs"
    return 0
  fi
  mkdir -p "$dir"
  local tmp
  tmp=$(mktemp -d "$dir/resolve.XXXXXX")
  trap 'rm -rf "$tmp"' RETURN
  echo "kafka $version: resolving jars from Maven Central into $libs" >&2
  if ! mvn -B -q --strict-checksums -f "$pom" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$tmp/libs" >"$tmp/mvn.log" 2>&1; then
    cat "$tmp/mvn.log" >&2
    echo "kafka $version: mvn failed (log above)" >&2
    return 1
  fi
  if $update_sums; then
    (cd "$tmp/libs" && sha256sum -- *.jar) >"$sums"
    echo "kafka $version: wrote $sums" >&2
  fi
  verify "$tmp/libs" "$sums" || { echo "kafka $version: jars do not match $sums" >&2; return 1; }
  rm -rf "$libs"
  mv "$tmp/libs" "$libs"
  touch "$libs/.complete"
  echo "$libs"
}

for v in "${args[@]}"; do resolve "$v"; done
