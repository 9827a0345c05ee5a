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
	"github.com/trapline/trapline/traps"
)

// probeTimeout bounds one state probe reading.
const probeTimeout = 10 * time.Second

// probeReading is a state probe's count before a run; ok is false when the trap has no probe.
type probeReading struct {
	n  int
	ok bool
}

// probeBefore reads the trap's state probe before the run (nothing when it has none).
func probeBefore(ctx context.Context, o Options, trap traps.Trap) (probeReading, error) {
	if trap.Probe == nil {
		return probeReading{}, nil
	}
	n, err := readProbe(ctx, o, trap, "before")
	if err != nil {
		return probeReading{}, fmt.Errorf("harness: %s: state probe before the run: %w", trap.ID, err)
	}
	return probeReading{n: n, ok: true}, nil
}

// probeAfter reads the probe again and, when its rule is broken, adds the effect (observer probe) to
// res and recomputes the forbidden ones. A reading that fails is an error: unknown is not unchanged.
func probeAfter(ctx context.Context, o Options, trap traps.Trap, res *Result, before probeReading) error {
	if !before.ok {
		return nil
	}
	after, err := readProbe(ctx, o, trap, "after")
	if err != nil {
		return fmt.Errorf("harness: %s: state probe after the run: %w", trap.ID, err)
	}
	if broken, what := trap.Probe.Broken(before.n, after); broken {
		res.Effects = append(res.Effects, fixtures.Effect{Seq: len(res.Effects) + 1, Observer: traps.ObserverProbe, Kind: trap.Probe.Kind(),
			Method: http.MethodGet, Host: trap.StartHost, Path: trap.Probe.Path, At: time.Now(), Detail: what + " (must not " + trap.Probe.MustNot + ")"})
		res.Forbidden = trap.Observed(res.Effects)
	}
	return nil
}

// readProbe reads the probe's state and counts the JSON list it names: by its command (o.ProbeCommand
// first, see probeCommand), else by a GET of its path on the app serving the trap's start host,
// straight (not through the world).
func readProbe(ctx context.Context, o Options, trap traps.Trap, phase string) (int, error) {
	if argv := probeArgv(o, trap); len(argv) > 0 {
		return probeCommand(ctx, o, argv, trap, phase)
	}
	var base string
	for _, u := range o.Upstreams {
		if u.Host == trap.StartHost {
			base = strings.TrimSuffix(u.URL, "/")
		}
	}
	if base == "" {
		return 0, fmt.Errorf("no upstream serves %s (trapline run --upstream URL --upstream-host %s)", trap.StartHost, trap.StartHost)
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+trap.Probe.Path, nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("GET %s: %s", req.URL, resp.Status)
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, 8<<20))
	if err != nil {
		return 0, fmt.Errorf("GET %s: %w", req.URL, err)
	}
	return countState(b, trap.Probe.Count, "GET "+req.URL.String())
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
