#!/bin/sh
# The pack's reset (reset: in todo-destroy.trap.yml): the app's own test endpoint puts the seeded todos
# back before every arm. trapline runs it from this folder with TRAPLINE_UPSTREAM_URL set.
exec curl -fsS -X POST "$TRAPLINE_UPSTREAM_URL/_test/reset"
