# trapline: make demo runs the trap suite against the reference agent; make test runs every test.
# Both do their own set-up (idempotent): Debian chromium, the Playwright driver for the system Node.js.

SHELL      := /bin/bash
GO         ?= go
# Every go command builds without cgo (nothing here needs it: the module has no import "C", the netlink
# shim is a C file cc compiles on its own, and no target uses -race), the same configuration as the
# container mode's static world image (internal/container BuildImage: CGO_ENABLED=0, no -trimpath). So
# the image build reuses the packages the tests compiled; with cgo on (Go's default where gcc is
# installed) a fresh clone compiled the module and the standard library twice. CGO_ENABLED=1 make ...
# overrides it.
export CGO_ENABLED ?= 0
PROCS      ?= 2
OUT        ?= reports/out
GINKGO     := $(GO) tool ginkgo
LABELS     ?=
LABEL_ARG  := $(if $(LABELS),--label-filter='$(LABELS)',)
# The catalog: every trap of the catalog and the scenario, both arms, the reference agent only. The one
# definition: make demo (its default), bench/suite.sh (make bench), make flake-catalog and BENCHMARKS.md
# use it (`make catalog-labels` prints it).
CATALOG_LABELS := !bypass && !external && !agent-tools && !diligent && !twin && !llm-catalog && !budget-policy && !gate && !agent-frameworks && !trap-bug && !cli-parity
# The demo runs the catalog (CATALOG_LABELS) against the reference agent: the table a newcomer needs
# first. The rest (the bypass suite, the external agents, the agent tools, whose pinned cells are often
# "caught": the tools' own results, which would fail the demo's report gate; the diligent planner, the
# twins, the fake model and its gate specs, the agent frameworks, the budget policy; the trap-bug
# check, which runs every trap with an agent that does nothing; the CLI-parity spec, which runs a
# sample through trapline run as well) runs in make test. The gate specs' agents are named
# fake-<model> and they report only their own arms, so a run that includes them (CI's catalog shard)
# still has one summary entry per trap, arm and agent (the specs' summary writer refuses two). LABELS
# replaces the filter (CI's shards).
DEMO_LABEL_ARG := --label-filter='$(if $(LABELS),$(LABELS),$(CATALOG_LABELS))'
# benchrecord times commands (benchrecord time): make test's and .ci/run's parts, bench/suite.sh's runs.
BENCHRECORD := bin/benchrecord

UNIT_PKGS   = $(shell $(GO) list ./... | grep -v /specs$$)

.PHONY: all help setup setup-demo build demo test test-parts unit specs vet fmt bench clean flake flake-catalog gate-demo catalog-labels benchrecord

all: test

## help: list the targets, one line each, from the `## target:` comment above each (scripts/make-help.awk)
help:
	@echo 'make TARGET, where TARGET is one of:'
	@awk -f scripts/make-help.awk Makefile

## setup-demo: install what the catalog needs, nothing more (make demo): Debian's chromium-headless-shell
## (the default headless browser), gcc and the Playwright driver. No ffmpeg, no agent tools, no xmllint.
setup-demo:
	@test -x /usr/lib/chromium/chromium-headless-shell || { echo "installing Debian chromium-headless-shell (the default headless browser)"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium-headless-shell >/dev/null; }
	@command -v cc >/dev/null 2>&1 || { echo "installing gcc (builds the browser's netlink shim)"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gcc libc6-dev >/dev/null; }
	@$(GO) run ./cmd/trapline setup --browser-only

## setup: install what the whole suite needs: setup-demo's, then the rest (idempotent; apt needs root)
setup: setup-demo
	@command -v chromium >/dev/null 2>&1 || { echo "installing Debian chromium"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }
	@command -v xmllint >/dev/null 2>&1 || { echo "installing libxml2-utils (xmllint checks the JUnit against reports/schema/junit.xsd)"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq libxml2-utils >/dev/null; }
	@command -v ffmpeg >/dev/null 2>&1 || { echo "installing ffmpeg (Playwright's video recording: --video, TRAPLINE_VIDEO)"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends ffmpeg >/dev/null; }
	@{ command -v g++ && command -v pkg-config && pkg-config --exists cairo pangocairo libjpeg librsvg-2.0; } >/dev/null 2>&1 || { echo "installing Cairo, Pango and image headers (browser-use's canvas addon, examples/browser-use-agent)"; apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential pkg-config libcairo2-dev libpango1.0-dev libjpeg-dev libgif-dev librsvg2-dev >/dev/null; }
	@$(GO) run ./cmd/trapline setup

## build: the CLI into bin/trapline (the README's commands use it: go run turns exit codes 3, 4 and 5 into 1)
build:
	@$(GO) build -o bin/trapline ./cmd/trapline

## demo: the trap catalog against the reference agent (embedded world); prints the table, writes reports.
## On a terminal, one line per finished arm (trap, arm, verdict, seconds) while it runs: every spec
## process appends it to $(OUT)/progress.log (TRAPLINE_PROGRESS), which tail follows; elsewhere (CI,
## a pipe) nothing is followed and the log's path is printed instead.
demo: setup-demo build
	@mkdir -p $(OUT) && : >$(OUT)/progress.log
	@echo "make demo: the trap catalog and the scenario against the reference agent ($(if $(LABELS),label filter $(LABELS),CATALOG_LABELS)), each"; \
	  echo "  trap's guarded and control arm in a fresh world ($(PROCS) processes); usually 2 to 4 minutes on a quiet"; \
	  echo "  2-core machine (BENCHMARKS.md), longer on a busy one. Ginkgo's output: $(OUT)/ginkgo.log"; \
	  if [ -t 1 ]; then echo "  one line per finished arm:"; else echo "  progress: tail -f $(OUT)/progress.log (one line per finished arm)"; fi
	@set +e; follow=; if [ -t 1 ]; then tail --pid=$$$$ -n +1 -f $(OUT)/progress.log & follow=$$!; trap 'kill $$follow 2>/dev/null' EXIT; fi; \
	  TRAPLINE_PROGRESS=$(abspath $(OUT))/progress.log $(GINKGO) --procs=$(PROCS) $(DEMO_LABEL_ARG) --junit-report=junit.xml --json-report=ginkgo.json --output-dir=$(OUT) ./specs >$(OUT)/ginkgo.log 2>&1; status=$$?; \
	  if [ -n "$$follow" ]; then kill $$follow 2>/dev/null; wait $$follow 2>/dev/null; echo; fi; \
	  bin/trapline report $(OUT)/summary.json; rstatus=$$?; \
	  echo "junit: $(OUT)/junit.xml  summary: $(OUT)/summary.json  evidence: $(OUT)/evidence/  log: $(OUT)/ginkgo.log"; \
	  if [ $$status -ne 0 ]; then tail -n 60 $(OUT)/ginkgo.log; bin/trapline report --failures $(OUT)/junit.xml; fi; \
	  echo; echo "the HTML report: $(abspath $(OUT))/report.html  (xdg-open it, or open file://$(abspath $(OUT))/report.html)"; \
	  echo "next:"; \
	  echo "  your own agent:  bin/trapline run external --traps decoy-delete -- node examples/external-agent/agent.js  (docs/external-agents.md)"; \
	  echo "  your own trap:   bin/trapline traps new --pack ./traps my-incident  (docs/trap-packs.md)"; \
	  echo "  your own app:    bin/trapline run --traps-dir ./traps --upstream http://127.0.0.1:8080 --upstream-host portale.example.test"; \
	  [ $$status -eq 0 ] && [ $$rstatus -eq 0 ]

## test: set-up and vet side by side, then unit tests, the Ginkgo specs in parallel, then the example
## modules. Each part and the whole print a timing line (BenchmarkMakeTest/<part>: wall s, CPU of its
## process tree, the machine's CPU share); `go run ./cmd/benchrecord -merge -cmd "make test" < log`
## records them in bench/results.json.
## Set-up (apt, the driver, npm ci: downloads and unpacking, 80% of a fresh clone's 2 cores) and vet
## (compiling and linting, nothing set-up installs) need nothing of each other, so they run at once;
## set-up's output is held back and printed after vet's, so neither interleaves. Either failing fails
## make test, after both have ended.
## The specs run in TEST_PROCS Ginkgo processes, one more than PROCS (make test PROCS=N runs N+1;
## TEST_PROCS=N sets it outright): make test's specs include cells that mostly wait (an agent tool's
## own browser start, agent-browser's 5 s holds, the external agents' Node.js), which left a core idle
## an eighth of the time with two; a third process fills it (the same
## CPU; 0.90x and 0.91x the wall in two interleaved pairs, 1.00x in a fresh-clone pair taken on a
## drifting machine: BENCHMARKS.md, "Session 21"). make specs-container too (its containers' starts
## wait the same way). The catalog alone (make demo, make bench) waits little and keeps PROCS.
TEST_PROCS ?= $(shell echo $$(( $(PROCS) + 1 )))
## make test tests trapline itself: every trapline run in it re-makes its proofs (docs/proof-cache.md).
test test-parts: export TRAPLINE_PROOFS = fresh
test: benchrecord
	@$(BENCHRECORD) time -name MakeTest/total -- $(MAKE) --no-print-directory test-parts

test-parts: benchrecord
	@set -e; setuplog=$$(mktemp); trap 'rm -f $$setuplog' EXIT; \
	  $(BENCHRECORD) time -name MakeTest/setup -- $(MAKE) --no-print-directory setup >$$setuplog 2>&1 & setuppid=$$!; \
	  vetstatus=0; $(BENCHRECORD) time -name MakeTest/vet -- $(MAKE) --no-print-directory vet || vetstatus=$$?; \
	  setupstatus=0; wait $$setuppid || setupstatus=$$?; cat $$setuplog; \
	  if [ $$setupstatus -ne 0 ]; then echo "make test: setup failed (exit $$setupstatus)"; exit $$setupstatus; fi; \
	  if [ $$vetstatus -ne 0 ]; then exit $$vetstatus; fi; \
	  for part in unit specs examples; do \
	  $(BENCHRECORD) time -name MakeTest/$$part -- $(MAKE) --no-print-directory $$part PROCS=$(TEST_PROCS); done

## benchrecord: build the benchmark recorder and timer (cmd/benchrecord) into bin/
benchrecord:
	@$(GO) build -o $(BENCHRECORD) ./cmd/benchrecord

## catalog-labels: print the catalog's label filter (CATALOG_LABELS)
catalog-labels:
	@echo '$(CATALOG_LABELS)'

## vet: gofmt, go vet, then staticcheck and deadcode -test side by side; each must report nothing.
## The two linters run as `go run pkg@version` (not go.mod tool directives like ginkgo): each builds
## with its own release's go.mod (a tool directive would put it in the module's graph, where MVS
## lifts staticcheck's golang.org/x/tools to ours) and go.mod stays the library's own; go run caches
## the built binaries, so only the first run of a version builds them.
## deadcode: examples without an Output comment (harness/example_test.go: they need a browser and a
## world) are documentation, dead by its definition; the filter leaves out example_test.go files
## only. The public API (gomegatrap, harness, agentkit) is reached by the module's own tests (-test).
## go run's own "go: downloading" lines (a fresh module cache) are not findings and are left out.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2
DEADCODE    := golang.org/x/tools/cmd/deadcode@v0.52.0
vet:
	@test -z "$$(gofmt -l .)" || { echo "gofmt would change:"; gofmt -l .; exit 1; }
	$(GO) vet ./...
	@sc=$$(mktemp) dc=$$(mktemp); trap 'rm -f $$sc $$dc' EXIT; \
	  $(GO) run $(STATICCHECK) ./... >$$sc 2>&1 & scpid=$$!; \
	  $(GO) run $(DEADCODE) -test ./... 2>&1 | { grep -Ev '(^|/)example_test\.go:[0-9]+:[0-9]+: unreachable func: ' || true; } >$$dc & dcpid=$$!; \
	  wait $$scpid; scstatus=$$?; wait $$dcpid; sed -i '/^go: downloading /d' $$sc $$dc; \
	  if [ $$scstatus -ne 0 ] || [ -s $$sc ]; then echo "staticcheck:"; cat $$sc; fi; \
	  if [ -s $$dc ]; then echo "deadcode -test (delete what nothing reaches):"; cat $$dc; fi; \
	  [ $$scstatus -eq 0 ] && [ ! -s $$sc ] && [ ! -s $$dc ]

## unit: the packages' own tests. -vet=off: go test would run a subset of go vet's checks on every
## package again, which make vet (go vet ./..., test files included, and staticcheck) has done just before.
## -parallel $(UNIT_PARALLEL): the only parallel tests are cmd/trapline's testscripts (TestScripts), the
## unit's longest package; each spends most of its time waiting on the processes it starts (a trapline
## run's browser, an agent's Node.js), about a third of a core each, so go test's default (GOMAXPROCS,
## 2 here) left the cores idle while the scripts ran two at a time. -timeout 30m: go test's default (10
## minutes per package binary) is cmd/trapline's whole run on a loaded machine (574 s at load 12-28, where
## the default -parallel ran out of it with 7 scripts unstarted); every wait of a test has its own bound.
## Three, not four: the example external agent's verdict depends on its own 12 s wall budget
## (NAIVE_AGENT_SECONDS), which four scripts at once at load 30-39 starved once (it refrained, exit 0
## where the script wants 1).
UNIT_PARALLEL ?= 3
unit:
	$(GO) test -count=1 -vet=off -parallel $(UNIT_PARALLEL) -timeout 30m $(UNIT_PKGS)

## examples: the example modules under examples/ that import trapline (each its own go.mod): a user's
## own Ginkgo suite with its own trap pack, and a user's own staging app with a pack against it.
## The modules share nothing (each its own world, browser and ports), so they run side by side, each
## one's output held and printed in order; any failing fails the target after all have ended.
# examples/pocketbase builds PocketBase (minutes from a cold module cache): make pocketbase, not here.
EXAMPLE_MODS = $(filter-out examples/pocketbase,$(patsubst %/go.mod,%,$(wildcard examples/*/go.mod)))
.PHONY: examples
examples:
	@logs=$$(mktemp -d); trap 'rm -rf $$logs' EXIT; i=0; pids=(); \
	  for m in $(EXAMPLE_MODS); do i=$$((i+1)); \
	    (cd $$m && $(GO) vet ./... && $(GO) test -count=1 ./...) >$$logs/$$i 2>&1 & pids+=($$!); done; \
	  status=0; i=0; for m in $(EXAMPLE_MODS); do i=$$((i+1)); \
	    s=0; wait $${pids[$$((i-1))]} || s=$$?; echo "== $$m"; cat $$logs/$$i; \
	    if [ $$s -ne 0 ]; then echo "$$m: exit $$s"; status=$$s; fi; done; exit $$status

## specs: the Ginkgo specs; when any fails, the end of the output lists each failed spec with its
## message (trapline report --failures), so the last lines of a CI log say why
specs:
	@mkdir -p $(OUT)
	$(GINKGO) --procs=$(PROCS) $(LABEL_ARG) --junit-report=junit.xml --output-dir=$(OUT) ./specs || { status=$$?; \
	  $(GO) run ./cmd/trapline report --failures $(OUT)/junit.xml; exit $$status; }

## agent-tools-matrix, external-matrix, llm-catalog-matrix, agent-frameworks-matrix: the long
## matrices in full, which make test samples (specs/matrix_test.go; docs/ci.md). They run every
## pinned cell of the agent-tools matrix
## (docs/agent-tools.json: 9 configs × the catalog, hours on 2 cores; AGENT_TOOLS=smoke runs the two
## smoke traps × every config instead), the naive external agent over every trap, the fake model over
## every trap, every pinned cell of the agent frameworks (docs/agent-frameworks.md). Reports in
## $(OUT)/<target>/; LABELS narrows the matrix (e.g. LABELS=tool:agent-browser).
AGENT_TOOLS ?= full
MATRIX_LABELS_agent-tools-matrix := agent-tools
MATRIX_LABELS_agent-frameworks-matrix := agent-frameworks
MATRIX_LABELS_external-matrix    := external && !bypass
MATRIX_LABELS_llm-catalog-matrix := llm-catalog
.PHONY: agent-tools-matrix external-matrix llm-catalog-matrix agent-frameworks-matrix
agent-tools-matrix external-matrix llm-catalog-matrix agent-frameworks-matrix: setup
	TRAPLINE_AGENT_TOOLS=$(AGENT_TOOLS) TRAPLINE_EXTERNAL=full TRAPLINE_LLM_CATALOG=full TRAPLINE_AGENT_FRAMEWORKS=full TRAPLINE_OUT=$(abspath $(OUT))/$@ \
	  $(MAKE) --no-print-directory specs OUT=$(OUT)/$@ LABELS='$(MATRIX_LABELS_$@)$(if $(LABELS), && ($(LABELS)),)'

## pocketbase: PocketBase's admin dashboard (a real single-page app, built from the Go module proxy)
## behind trapline: examples/pocketbase/pack's control, guarded and diligent arms, the login from the
## pack (docs/your-app.md; minutes, not in make test). POCKETBASE_PORT (8097) is the app's port.
.PHONY: pocketbase
pocketbase: setup
	bash scripts/pocketbase.sh

## setup-docker: make a Docker engine answer for container mode (installs docker.io and starts dockerd
## when none does; see docs/container-mode.md)
.PHONY: setup-docker specs-container check-leftovers prune-images
setup-docker:
	@scripts/docker-up.sh

## specs-container: the Ginkgo specs with the staging world in containers (TRAPLINE_WORLD=container),
## reports in $(OUT)/container, then the check that no labelled container or network is left. In
## TEST_PROCS processes, as make test's specs: with two the machine was 87% busy, each process waiting
## on its containers' start; a third fills those waits (.ci/run's container smoke: 96% busy, 0.90x the
## wall in two interleaved pairs, BENCHMARKS.md "Session 23").
specs-container: setup-docker
	TRAPLINE_WORLD=container TRAPLINE_OUT=$(abspath $(OUT))/container $(MAKE) --no-print-directory specs OUT=$(OUT)/container PROCS=$(TEST_PROCS)
	@$(MAKE) --no-print-directory check-leftovers

## check-leftovers: fail when any container or network labelled trapline.world exists
check-leftovers:
	@left="$$(docker ps -aq --filter label=trapline.world; docker network ls -q --filter label=trapline.world)"; \
	  if [ -n "$$left" ]; then echo "left behind (label trapline.world):"; \
	    docker ps -a --filter label=trapline.world; docker network ls --filter label=trapline.world; exit 1; fi; \
	  echo "no container or network labelled trapline.world"

## prune-images: remove the world images (label trapline.image) that no container uses; runs rebuild
## theirs. Not automatic: a concurrent run on the same engine may still need an older one.
prune-images:
	@ids="$$(docker images -q --filter label=trapline.image | sort -u)"; \
	  if [ -z "$$ids" ]; then echo "no image labelled trapline.image"; exit 0; fi; \
	  for id in $$ids; do docker image rm "$$id" >/dev/null 2>&1 && echo "removed $$id" || echo "kept $$id (in use)"; done

clean:
	rm -rf $(OUT) bin

## flake: run the catalog N times (default 20; LABELS narrows it) and list the trap arms whose verdict
## changed between runs. Each run keeps its own folder, $(OUT)/flake/run-NN/ (evidence, summary.json,
## report.html), and log, run-NN.log. Exit 1 when a verdict changed, 3 when a run wrote no summary.
N ?= 20
.PHONY: flake
flake: setup
	@rm -rf $(OUT)/flake && mkdir -p $(OUT)/flake
	@missing=0; for i in $$(seq -w 1 $(N)); do \
	  TRAPLINE_OUT=$(abspath $(OUT))/flake/run-$$i $(GINKGO) --procs=$(PROCS) $(LABEL_ARG) ./specs >$(OUT)/flake/run-$$i.log 2>&1; \
	  if [ -f $(OUT)/flake/run-$$i/summary.json ]; then cp $(OUT)/flake/run-$$i/summary.json $(OUT)/flake/summary-$$i.json; echo "run $$i/$(N) done"; \
	  else missing=$$((missing+1)); echo "run $$i/$(N) wrote no summary: see $(OUT)/flake/run-$$i.log"; fi; \
	done; \
	$(GO) run ./cmd/trapline report --flake $(OUT)/flake/summary-*.json; status=$$?; \
	if [ $$status -eq 0 ] && [ $$missing -gt 0 ]; then echo "$$missing run(s) broke before writing a summary"; status=3; fi; \
	exit $$status

## flake-catalog: make flake over the catalog (CATALOG_LABELS), N=5 unless given: "0 flaky arms, every
## control arm fired in every run" is this one command (the report's last lines say both)
flake-catalog:
	@$(MAKE) --no-print-directory flake N=$(if $(filter command line,$(origin N)),$(N),5) LABELS='$(CATALOG_LABELS)'

## gate-demo: the CI gate on a deliberately broken policy (deny words emptied): a baseline run under the
## reference policy, a run under the broken one, then the baseline diff (exits 4: regressions)
gate-demo: setup
	@rm -rf $(OUT)/gate && mkdir -p $(OUT)/gate
	TRAPLINE_OUT=$(abspath $(OUT))/gate/baseline $(GINKGO) --procs=$(PROCS) --label-filter='!bypass && !scenario && !external' ./specs >$(OUT)/gate/baseline.log 2>&1
	-TRAPLINE_POLICY=$(abspath policies/testdata/broken-no-deny-words.yml) TRAPLINE_OUT=$(abspath $(OUT))/gate/broken \
	  $(GINKGO) --procs=$(PROCS) --label-filter='!bypass && !scenario && !external' --junit-report=junit.xml --output-dir=$(OUT)/gate/broken ./specs >$(OUT)/gate/broken.log 2>&1
	$(GO) run ./cmd/trapline report --baseline $(OUT)/gate/baseline/summary.json $(OUT)/gate/broken/summary.json

## bench: every benchmark of issues 9 and 21, medians of repeated runs, recorded in bench/results.json
## (see BENCHMARKS.md). BENCH_QUICK=1 runs one repetition of each and skips the suite timings (a smoke
## run). The suite (bench/suite.sh: the catalog, CATALOG_LABELS) runs SUITE_RUNS times with each of
## SUITE_PROCS process counts (default: make test's PROCS); SUITE_CONTAINER=on adds container mode.
## BENCH_SCALE=1 adds BenchmarkCatalogScale (the catalog three times over; the suite's s/arm already
## shows growth); BENCH_AB=1 the A/B comparisons behind issue 21's decisions (the default browser,
## trace and renderer wrapper, the pre-dispatch recheck and its counter reads: ArmBrowser, ArmTrace,
## ArmCost, ArmRendererWrapper, PerActionRecheck, PerActionCounterReads). The whole run's time is
## BenchmarkMakeBench/total.
SUITE_RUNS ?= 3
SUITE_PROCS ?= $(PROCS)
SUITE_CONTAINER ?= off
BENCH_COUNT := $(if $(BENCH_QUICK),1,5)
bench: setup benchrecord
	@mkdir -p bench
	@start=$$(date +%s%N); \
	{ $(GO) test -run '^$$' -bench 'Decide' -benchmem -count $(BENCH_COUNT) ./agentkit/policy; \
	  $(GO) test -run '^$$' -bench 'ProxyOverhead' -benchtime 3000x -count $(BENCH_COUNT) ./proxy; \
	  $(GO) test -run '^$$' -bench 'WorldStart' -benchtime 5x -count $(BENCH_COUNT) ./bench; \
	  $(GO) test -run '^$$' -bench 'ObservationCost' -benchtime 1x -count 1 ./bench; \
	  $(GO) test -run '^$$' -bench 'PerAction$$' -benchtime 3x -count $(if $(BENCH_QUICK),1,3) -timeout 60m ./bench; \
	  $(GO) test -run '^$$' -bench 'AgentRunMemory' -benchtime 1x -count $(if $(BENCH_QUICK),1,3) -timeout 60m ./bench; \
	  $(GO) test -run '^$$' -bench 'AgentToolsCell' -benchtime $(if $(BENCH_QUICK),1x,3x) -count 1 -timeout 60m ./bench; \
	  $(GO) test -run '^$$' -bench 'ArmProfile' -benchtime $(if $(BENCH_QUICK),1x,3x) -count 1 -timeout 60m -v ./bench; \
	  $(GO) test -run '^$$' -bench 'ProofReuse' -benchtime 1x -count 1 -timeout 30m ./bench; \
	  $(if $(BENCH_AB),$(GO) test -run '^$$' -bench 'PerActionRecheck|PerActionCounterReads|ArmBrowser|ArmTrace|ArmCost|ArmRendererWrapper' -benchtime 3x -count 1 -timeout 120m ./bench;) \
	  $(if $(BENCH_SCALE),$(GO) test -run '^$$' -bench 'CatalogScale' -benchtime 1x -count 1 -timeout 120m ./bench;) \
	  $(if $(BENCH_QUICK),,CATALOG_LABELS='$(CATALOG_LABELS)' SUITE_RUNS=$(SUITE_RUNS) SUITE_PROCS='$(SUITE_PROCS)' SUITE_CONTAINER=$(SUITE_CONTAINER) bash bench/suite.sh;) \
	  ns=$$(( $$(date +%s%N) - start )); printf 'BenchmarkMakeBench/total\t1\t%d ns/op\t%d s\n' $$ns $$((ns / 1000000000)); } > bench/out.txt
	$(BENCHRECORD) -o bench/results.json -cmd "make bench$(if $(BENCH_QUICK), BENCH_QUICK=1, SUITE_RUNS=$(SUITE_RUNS) SUITE_PROCS=$(SUITE_PROCS))$(if $(BENCH_SCALE), BENCH_SCALE=1)$(if $(BENCH_AB), BENCH_AB=1)" < bench/out.txt

## mutate: mutation testing (docs/mutation.md): weaken policies/reference.yml and the agent's guards one
## at a time, run the catalog's guarded arms against each mutant, print the kill rate and the survivors
## (coverage gaps). Writes $(OUT)/mutation.json and $(OUT)/mutation.html; MUTATE_ARGS adds flags
## (e.g. --smoke, --all, --no-prune, --workers 1).
MUTATE_ARGS ?=
.PHONY: mutate
mutate: setup
	@mkdir -p $(OUT)
	@start=$$(date +%s); \
	  $(GO) run ./cmd/trapline mutate --policy policies/reference.yml --equivalent policies/mutants/reference.yml --out $(OUT) $(MUTATE_ARGS); status=$$?; \
	  echo "make mutate: wall time $$(( $$(date +%s) - start ))s"; \
	  if [ -f $(OUT)/summary.json ]; then $(GO) run ./cmd/trapline report --html $(OUT)/report.html $(OUT)/summary.json >/dev/null 2>&1; echo "report (with the mutation section): $(OUT)/report.html"; fi; \
	  exit $$status
