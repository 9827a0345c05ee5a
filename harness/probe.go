package harness

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// probeTimeout bounds one state probe reading.
const probeTimeout = 10 * time.Second

// probeReading is a state probe's count before a run; ok is false when the trap has no probe.
type probeReading struct {
	n      int
	ok     bool
	source string
}

// probeBefore reads the trap's state probe before the run (nothing when it has none).
func probeBefore(ctx context.Context, o Options, trap traps.Trap) (probeReading, error) {
	if trap.Probe == nil {
		return probeReading{}, nil
	}
	n, source, err := readProbe(ctx, o, trap, "before")
	if err != nil {
		return probeReading{}, fmt.Errorf("harness: %s: state probe before the run: %w", trap.ID, err)
	}
	return probeReading{n: n, ok: true, source: source}, nil
}

// probeAfter reads the probe again, records both readings in res.Probes (every arm) and, when its rule
// is broken, adds the effect (observer probe) to res and recomputes the forbidden ones. It returns the
// reading's effects a success condition may match (traps.Probe.ReadingEffects). A reading that fails
// is an error: unknown is not unchanged.
func probeAfter(ctx context.Context, o Options, trap traps.Trap, res *results.Result, before probeReading) ([]fixtures.Effect, error) {
	if !before.ok {
		return nil, nil
	}
	after, _, err := readProbe(ctx, o, trap, "after")
	if err != nil {
		return nil, fmt.Errorf("harness: %s: state probe after the run: %w", trap.ID, err)
	}
	broken, what := trap.Probe.Broken(before.n, after)
	res.Probes = append(res.Probes, results.ProbeReading{Count: trap.Probe.Count, Source: before.source,
		Before: before.n, After: after, MustNot: trap.Probe.MustNot, Broken: broken})
	if broken {
		res.Effects = append(res.Effects, fixtures.Effect{Seq: len(res.Effects) + 1, Observer: traps.ObserverProbe, Kind: trap.Probe.Kind(),
			Method: http.MethodGet, Host: trap.StartHost, Path: trap.Probe.Path, At: time.Now(), Detail: what + " (must not " + trap.Probe.MustNot + ")"})
		res.Forbidden = trap.Observed(res.Effects)
	}
	return trap.Probe.ReadingEffects(before.n, after), nil
}

// readProbe reads the probe's state and counts the JSON list it names: by its command (o.ProbeCommand
// first, see probeCommand), else by a GET of its path on the app serving the trap's start host,
// straight (not through the world).
// It returns the count and where it was read ("GET URL", "command PROG ARGS").
func readProbe(ctx context.Context, o Options, trap traps.Trap, phase string) (int, string, error) {
	if argv := probeArgv(o, trap); len(argv) > 0 {
		n, err := probeCommand(ctx, o, argv, trap, phase)
		return n, "command " + strings.Join(argv, " "), err
	}
	var base string
	for _, u := range o.Upstreams {
		if u.Host == trap.StartHost {
			base = strings.TrimSuffix(u.URL, "/")
		}
	}
	if base == "" {
		return 0, "", fmt.Errorf("no upstream serves %s (trapline run --upstream %s=URL)", trap.StartHost, trap.StartHost)
	}
	source := "GET " + base + trap.Probe.Path
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+trap.Probe.Path, nil)
	if err != nil {
		return 0, source, err
	}
	for k, v := range trap.Probe.Headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, source, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, source, fmt.Errorf("GET %s: %s", req.URL, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return 0, source, fmt.Errorf("GET %s: %w", req.URL, err)
	}
	n, err := countState(b, trap.Probe.Count, "GET "+req.URL.String())
	return n, source, err
}

// countState decodes a state probe's JSON output and counts the list in field count (the document
// itself when count is ""); where names the reading in errors.
func countState(b []byte, count, where string) (int, error) {
	var doc any
	if err := json.Unmarshal(b, &doc); err != nil {
		return 0, fmt.Errorf("%s: not JSON: %w", where, err)
	}
	if count != "" {
		m, ok := doc.(map[string]any)
		if !ok {
			return 0, fmt.Errorf("%s: want a JSON object with field %q", where, count)
		}
		doc = m[count]
	}
	list, ok := doc.([]any)
	if !ok {
		return 0, fmt.Errorf("%s: field %q is not a JSON list", where, count)
	}
	return len(list), nil
}
