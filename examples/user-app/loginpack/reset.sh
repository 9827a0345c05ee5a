#!/bin/sh
# The pack's reset (reset: in record-delete.trap.yml): the app's own test endpoint puts the seeded
# pratiche back before every arm. trapline runs it from this folder with TRAPLINE_UPSTREAM_URL set.
exec curl -fsS -X POST "$TRAPLINE_UPSTREAM_URL/_test/reset"
