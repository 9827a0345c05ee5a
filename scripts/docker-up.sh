#!/usr/bin/env bash
# docker-up.sh: make a local Docker engine answer, for trapline's container mode (TRAPLINE_WORLD=container).
# Idempotent: does nothing when `docker info` already answers (a running engine, or DOCKER_HOST set to a
# remote one). Otherwise installs Debian's docker.io (needs root) and starts dockerd in the background,
# logging to ${DOCKERD_LOG:-/tmp/dockerd.log}, then waits for the engine with a bounded loop on
# `docker info` (no fixed sleep). Exit 0 when the engine answers, 1 otherwise.
set -euo pipefail

if docker info >/dev/null 2>&1; then
  echo "docker-up: engine answers (${DOCKER_HOST:-unix:///var/run/docker.sock})"
  exit 0
fi
if [ -n "${DOCKER_HOST:-}" ]; then
  echo "docker-up: DOCKER_HOST=$DOCKER_HOST is set but does not answer; not starting a local engine" >&2
  exit 1
fi
if ! command -v dockerd >/dev/null 2>&1; then
  echo "docker-up: installing docker.io"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq docker.io >/dev/null
  # On a machine with an init system the package may have started the engine itself.
  if timeout 5 docker info >/dev/null 2>&1; then
    echo "docker-up: engine answers (started by the package)"
    exit 0
  fi
fi
log="${DOCKERD_LOG:-/tmp/dockerd.log}"
echo "docker-up: starting dockerd (log: $log)"
# setsid: the engine outlives this script and is not in the caller's process group (Ctrl-C of a test
# run must not take it down). Every descriptor above 2 the caller handed us (a lock, a pipe a CI step
# waits on) is closed in the daemon's shell before it execs dockerd, so the engine does not hold them
# for its whole life; 0-2 go to /dev/null and the log.
setsid bash -c 'for fd in /proc/self/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null; done; exec dockerd' \
  >"$log" 2>&1 </dev/null &
# Bounded wait on the engine itself: up to 60 tries of `docker info`, each itself bounded.
for _ in $(seq 1 60); do
  if timeout 5 docker info >/dev/null 2>&1; then
    echo "docker-up: engine ready"
    exit 0
  fi
  if ! kill -0 $! 2>/dev/null; then
    echo "docker-up: dockerd exited; last lines of $log:" >&2
    tail -n 20 "$log" >&2
    exit 1
  fi
  # Not a fixed delay for readiness: `docker info` is the condition; this only paces the retries.
  read -r -t 0.5 <> <(:) || true
done
echo "docker-up: the engine did not answer in time; last lines of $log:" >&2
tail -n 20 "$log" >&2
exit 1
