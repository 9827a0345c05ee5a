package browser

import (
	"context"
	"strings"
	"testing"
)

// TestNilEnvironIsRefused: every way to start or reach a browser refuses a nil Environ before it
// starts anything, naming the field: nil is never taken as an empty environment.
func TestNilEnvironIsRefused(t *testing.T) {
	ctx := context.Background()
	for name, start := range map[string]func() error{
		"Options.Environ": func() error { _, err := Launch(Options{}); return err },
		"CDPOptions.Environ": func() error {
			_, err := LaunchCDP(ctx, CDPOptions{ProxyURL: "http://127.0.0.1:9", DownloadsDir: t.TempDir()})
			return err
		},
		"CDPOptions.Environ ":   func() error { _, err := LaunchSharedCDP(ctx, CDPOptions{}); return err },
		"RemoteOptions.Environ": func() error { _, err := Connect(RemoteOptions{Endpoint: "ws://127.0.0.1:9/x"}); return err },
	} {
		field := strings.TrimSpace(name)
		if err := start(); err == nil || !strings.Contains(err.Error(), field+" is nil: pass os.Environ()") {
			t.Errorf("%s nil: err = %v, want one naming %s", field, err, field)
		}
	}
}

func TestGetenv(t *testing.T) {
	env := []string{"A=1", "B=x=y", "A=2", "C"}
	for k, want := range map[string]string{"A": "2", "B": "x=y", "C": "", "D": ""} {
		if got := getenv(env, k); got != want {
			t.Errorf("getenv(%s) = %q, want %q", k, got, want)
		}
	}
}
