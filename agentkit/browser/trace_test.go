package browser

import (
	"strings"
	"testing"
)

func TestTraceDetailResolve(t *testing.T) {
	for env, want := range map[string]TraceDetail{"": TraceLog, "full": TraceFull, "screenshots": TraceScreenshots, "log": TraceLog} {
		got, err := TraceDefault.resolve(env)
		if err != nil || got != want {
			t.Errorf("%s=%q: %v, %v; want %v", TraceEnv, env, got, err, want)
		}
	}
	if got, err := TraceFull.resolve("log"); err != nil || got != TraceFull {
		t.Errorf("an explicit detail must win over %s: %v, %v", TraceEnv, got, err)
	}
	for _, bad := range []string{"default", "FULL", "on"} {
		if _, err := TraceDefault.resolve(bad); err == nil || !strings.Contains(err.Error(), TraceEnv) {
			t.Errorf("%s=%q: err %v; want an error naming the variable", TraceEnv, bad, err)
		}
	}
	if o := TraceFull.tracingOptions(); !*o.Screenshots || !*o.Snapshots {
		t.Error("full: want screenshots and snapshots")
	}
	if o := TraceScreenshots.tracingOptions(); !*o.Screenshots || *o.Snapshots {
		t.Error("screenshots: want screenshots, no snapshots")
	}
	if o := TraceLog.tracingOptions(); *o.Screenshots || *o.Snapshots {
		t.Error("log: want neither")
	}
}
