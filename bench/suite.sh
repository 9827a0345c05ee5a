#!/usr/bin/env bash
# Times the whole trap suite (catalog + scenario, both arms) with 1 and 2 Ginkgo processes, embedded
# world, and in container mode when a Docker engine answers; SUITE_RUNS repeats each (default 3).
# Prints Go benchmark lines so cmd/benchrecord takes the medians with the other benchmarks:
#   BenchmarkSuite/embedded/procs=1  1  <ns> ns/op  <s> s/suite
# A run whose specs fail still prints its time, flagged on stderr: a broken suite is not a fast one.
set -uo pipefail
cd "$(dirname "$0")/.."
runs=${SUITE_RUNS:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
modes=(embedded)
if [ "${SUITE_CONTAINER:-auto}" != "off" ] && docker info >/dev/null 2>&1; then modes+=(container); fi
for mode in "${modes[@]}"; do
  for procs in 1 2; do
    for i in $(seq 1 "$runs"); do
      start=$(date +%s%N)
      TRAPLINE_WORLD=$mode TRAPLINE_OUT=$out/$mode-$procs-$i go tool ginkgo --procs="$procs" --label-filter='!bypass && !external' ./specs >"$out/log" 2>&1
      status=$?
      end=$(date +%s%N)
      ns=$((end - start))
      if [ $status -ne 0 ]; then echo "suite.sh: $mode procs=$procs run $i failed (exit $status); tail of its log:" >&2; tail -n 20 "$out/log" >&2; fi
      awk -v m="$mode" -v p="$procs" -v ns="$ns" 'BEGIN { printf "BenchmarkSuite/%s/procs=%d\t1\t%.0f ns/op\t%.1f s/suite\n", m, p, ns, ns / 1e9 }'
    done
  done
done
