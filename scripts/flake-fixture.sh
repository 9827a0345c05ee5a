#!/usr/bin/env bash
# flake-fixture.sh: make the real flake set that `go test ./cmd/trapline -run PatternsOverTheFlakeSet`
# reads, cmd/trapline/testdata/flake-set.tar.gz: 20 runs of three traps (both arms of the reference
# agent: confirm-dialog, exe-download, session-expiry) and one run of those and decoy-delete under the
# deliberately broken policy (policies/testdata/broken-no-deny-words.yml). The archive keeps each run's
# summary.json and, per arm, what `report --patterns` reads (violations.jsonl, actions.jsonl,
# result.json): no trace, screenshot, video or download. About 2 to 3 minutes a run on 2 cores.
#
#   scripts/flake-fixture.sh [WORK]          # runs and packs (WORK default: a new temporary folder)
#   PACK_ONLY=1 scripts/flake-fixture.sh WORK  # packs the runs already in WORK
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
work="${1:-$(mktemp -d /tmp/trapline-flake-XXXX)}"
mkdir -p "$work"
filter='(trap:confirm-dialog || trap:exe-download || trap:session-expiry) && !external'
broken_filter='(trap:confirm-dialog || trap:exe-download || trap:session-expiry || trap:decoy-delete) && !external'
if [ -z "${PACK_ONLY:-}" ]; then
  go test -c -o "$work/specs.test" "$repo/specs"
  for i in $(seq -w 1 20); do
    # One process per run (--procs=1): the specs binary, run in the specs folder as ginkgo does.
    (cd "$repo/specs" && TRAPLINE_OUT="$work/run-$i" nice -n 10 "$work/specs.test" -ginkgo.label-filter="$filter" -ginkgo.no-color) >"$work/run-$i.log" 2>&1 || true
    echo "run $i done"
  done
  (cd "$repo/specs" && TRAPLINE_POLICY="$repo/policies/testdata/broken-no-deny-words.yml" TRAPLINE_OUT="$work/broken" \
    nice -n 10 "$work/specs.test" -ginkgo.label-filter="$broken_filter" -ginkgo.no-color) >"$work/broken.log" 2>&1 || true
fi
cd "$work"
files=()
for d in run-*/ broken/; do
  d="${d%/}"
  [ -f "$d/summary.json" ] || { echo "flake-fixture: $d has no summary.json (see $d.log)" >&2; exit 3; }
  files+=("$d/summary.json")
  while IFS= read -r f; do files+=("$f"); done < <(find "$d/evidence" -type f \( -name violations.jsonl -o -name actions.jsonl -o -name result.json \) | sort)
done
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime='2026-01-01' -czf "$repo/cmd/trapline/testdata/flake-set.tar.gz" "${files[@]}"
ls -l "$repo/cmd/trapline/testdata/flake-set.tar.gz"
