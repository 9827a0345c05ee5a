#!/usr/bin/env bash
# Times the catalog (every catalog trap and the scenario, both arms, the reference agent: the Makefile's
# CATALOG_LABELS) with the embedded world, SUITE_RUNS times (default 3) for each process count in
# SUITE_PROCS (default 2, make test's), and in container mode too when SUITE_CONTAINER=on and a Docker
# engine answers. Each run prints one Go benchmark line (benchrecord time) that cmd/benchrecord turns
# into medians with the other benchmarks:
#   BenchmarkSuite/catalog/embedded/procs=2  1  <ns> ns/op  <s> s  <cpu-s> cpu-s  ...  <n> arms
#     <s> s/arm  <cpu-s> cpu-s/arm  <n> failed-arms  <busy> cpu-busy-%  <load> loadavg1  <code> exit
# cpu-s is the suite's whole process tree (Ginkgo, the test processes, the drivers, Chromium);
# cpu-busy-% is the machine's (every process, /proc/stat), so a busy machine shows. A run whose specs
# fail still prints its time, flagged on stderr and by failed-arms and exit: a broken suite is not a
# fast one.
set -uo pipefail
cd "$(dirname "$0")/.."
labels=${CATALOG_LABELS:-$(make -s --no-print-directory catalog-labels)}
runs=${SUITE_RUNS:-3}
procs_list=${SUITE_PROCS:-2}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
go build -o "$out/benchrecord" ./cmd/benchrecord || exit 1
modes=(embedded)
if [ "${SUITE_CONTAINER:-off}" = "on" ]; then
  if docker info >/dev/null 2>&1; then modes+=(container); else echo "suite.sh: SUITE_CONTAINER=on but no Docker engine answers; embedded only" >&2; fi
fi
for mode in "${modes[@]}"; do
  for procs in $procs_list; do
    for i in $(seq 1 "$runs"); do
      dir=$out/$mode-$procs-$i
      TRAPLINE_WORLD=$mode TRAPLINE_OUT=$dir "$out/benchrecord" time -name "Suite/catalog/$mode/procs=$procs" \
        -summary "$dir/summary.json" -log "$out/log" -- go tool ginkgo --procs="$procs" --label-filter="$labels" ./specs
      status=$?
      # SUITE_SUMMARIES=DIR keeps each run's summary.json (for trapline report --flake across runs).
      if [ -n "${SUITE_SUMMARIES:-}" ] && [ -f "$dir/summary.json" ]; then mkdir -p "$SUITE_SUMMARIES" && cp "$dir/summary.json" "$SUITE_SUMMARIES/summary-$mode-$procs-$i.json"; fi
      if [ $status -ne 0 ]; then echo "suite.sh: $mode procs=$procs run $i failed (exit $status); tail of its log:" >&2; tail -n 20 "$out/log" >&2; fi
    done
  done
done
