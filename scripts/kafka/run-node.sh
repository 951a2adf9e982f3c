#!/usr/bin/env bash
# Runs one Kafka JVM (the arguments: `java …`) and ends it when this script's stdin closes, i.e. when
# the process that started it (a test worker, `npm run kafka:local`) is gone, even after a kill -9 of
# that process: no orphaned brokers on a shared machine. Prints "ragwatch-kafka-pid <pid>" first so the
# caller can signal the JVM itself (kill -9 in failover tests). Exits with the JVM's status.
set -uo pipefail
exec 3<&0
"$@" </dev/null 3<&- &
pid=$!
echo "ragwatch-kafka-pid $pid"
(
  while read -r _ <&3; do :; done
  kill -TERM "$pid" 2>/dev/null || exit 0
  for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || exit 0; sleep 0.1; done
  kill -KILL "$pid" 2>/dev/null
) &
watcher=$!
wait "$pid"
rc=$?
kill "$watcher" 2>/dev/null
exit "$rc"
