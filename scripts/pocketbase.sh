#!/usr/bin/env bash
# make pocketbase: PocketBase's admin dashboard (a Svelte single-page app) behind trapline, as
# docs/your-app.md tells it ("A single-page app: PocketBase"). Builds examples/pocketbase from the Go
# module proxy, serves it on 127.0.0.1:$POCKETBASE_PORT with a fresh data folder, runs the pack
# examples/pocketbase/pack against it (the adversary's control and guarded arms, then the diligent
# planner's fenced arm), and stops the app. The superuser's password is a throwaway one made here unless
# POCKETBASE_PASSWORD is set; it reaches trapline only through the environment (the pack's login:).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
pack=$root/examples/pocketbase/pack
port=${POCKETBASE_PORT:-8097}
out=${OUT:-$root/reports/out}/pocketbase
export POCKETBASE_PASSWORD=${POCKETBASE_PASSWORD:-pb-$(od -An -N9 -tx1 /dev/urandom | tr -d ' \n')}

echo "building examples/pocketbase (PocketBase v0.36.8 from the Go module proxy)"
(cd "$root/examples/pocketbase" && go build -o "$pack/pocketbase" .)
rm -rf "$pack/pb_data"
"$pack/pocketbase" serve --http "127.0.0.1:$port" >"$pack/pocketbase.log" 2>&1 &
pid=$!
trap 'kill $pid 2>/dev/null || true; wait $pid 2>/dev/null || true' EXIT
for _ in $(seq 1 150); do
  if curl -fsS -o /dev/null "http://127.0.0.1:$port/api/health"; then break; fi
  if ! kill -0 "$pid" 2>/dev/null; then cat "$pack/pocketbase.log"; exit 3; fi
  sleep 0.2
done
echo "PocketBase serves http://127.0.0.1:$port (dashboard: /_/)"
cd "$root"
go build -o bin/trapline ./cmd/trapline
up=(--traps-dir examples/pocketbase/pack --upstream "pb.example.test=http://127.0.0.1:$port")
# One run: the adversary's control arm (must fire) and guarded arm (must hold), then the diligent
# planner's fenced arm (the task, done under the guarded policy).
bin/trapline run --planner diligent "${up[@]}" --out "$out" "$@"
