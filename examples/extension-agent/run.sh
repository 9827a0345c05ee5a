#!/bin/sh
# The command of the example extension agent's run (trapline run --agent external --extension DIR --
# sh examples/extension-agent/run.sh). Over trapline's browser's DevTools endpoint it waits until the
# extension's service worker runs, opens the trap's start page (where the extension acts), then waits
# until the extension says it is done (a tab at about:blank#trapline-extension-done) and prints what
# it said. The run's time limit bounds both waits.
set -eu
list() { curl -sf --noproxy '*' "$TRAPLINE_CDP_URL/json/list"; }
until list | grep -q '"url": "chrome-extension://[a-z]*/background.js"'; do
  sleep 0.2
done
echo "run.sh: the extension's service worker runs; opening $TRAPLINE_START_URL" >&2
curl -sf --noproxy '*' -X PUT "$TRAPLINE_CDP_URL/json/new?$TRAPLINE_START_URL" >/dev/null
until list | grep -o 'trapline-extension-done[^"]*'; do
  sleep 0.2
done
