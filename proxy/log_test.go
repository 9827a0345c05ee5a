package proxy

import (
	"encoding/json"
	"errors"
	"net/http"
	"testing"
)

func TestJSONLog(t *testing.T) {
	w := newWorld(t)
	var buf syncBuffer
	p, err := Start(Config{Rules: newFakeRules("portale.interno.test"), Hosts: w.hosts, Log: &buf})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	client := proxiedClient(t, p)
	for _, u := range []string{"http://portale.interno.test/a", "http://evil.example.test/b"} {
		resp, err := client.Get(u)
		if err != nil {
			_ = p.Close()
			t.Fatalf("GET %s: %v", u, err)
		}
		_ = resp.Body.Close()
	}
	if err := p.Close(); err != nil {
		t.Fatalf("close: %v", err)
	}

	lines := buf.lines()
	mem := p.Decisions()
	if len(lines) != 2 || len(mem) != 2 {
		t.Fatalf("got %d log lines and %d decisions, want 2 each:\n%v", len(lines), len(mem), lines)
	}
	want := []struct{ verdict, rule, host, path string }{
		{Allow, "allowed", "portale.interno.test", "/a"},
		{Deny, "host_not_allowed", "evil.example.test", "/b"},
	}
	for i, line := range lines {
		var raw map[string]any
		if err := json.Unmarshal([]byte(line), &raw); err != nil {
			t.Fatalf("line %d %q: %v", i, line, err)
		}
		for _, k := range []string{"v", "time", "method", "scheme", "host", "path", "verdict", "rule", "reason"} {
			if _, ok := raw[k]; !ok {
				t.Errorf("line %d lacks %q: %s", i, k, line)
			}
		}
		var d Decision
		if err := json.Unmarshal([]byte(line), &d); err != nil {
			t.Fatalf("line %d: %v", i, err)
		}
		if d.V != 1 || d.Time.IsZero() || d.Choice != want[i].verdict || string(d.Rule) != want[i].rule || d.Host != want[i].host || d.Path != want[i].path {
			t.Errorf("line %d = %+v, want v=1 %+v", i, d, want[i])
		}
		if !d.Time.Equal(mem[i].Time) || d.Rule != mem[i].Rule {
			t.Errorf("line %d = %+v, differs from in-memory decision %+v", i, d, mem[i])
		}
	}
}

var errDiskFull = errors.New("disk full")

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errDiskFull }

func TestLogWriteErrorReportedByClose(t *testing.T) {
	p, err := Start(Config{Log: failingWriter{}})
	if err != nil {
		t.Fatalf("start: %v", err)
	}
	client := proxiedClient(t, p)
	resp, err := client.Get("http://portale.interno.test/")
	if err != nil {
		_ = p.Close()
		t.Fatalf("GET: %v", err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("status %d, want 403 even when the log fails", resp.StatusCode)
	}
	if err := p.Close(); !errors.Is(err, errDiskFull) {
		t.Errorf("Close() = %v, want an error wrapping %v", err, errDiskFull)
	}
	if len(p.Decisions()) != 1 {
		t.Errorf("got %d in-memory decisions, want 1", len(p.Decisions()))
	}
}
