package container

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
	"github.com/testcontainers/testcontainers-go/network"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// engine skips the test, saying why, when no Docker engine answers; it builds the image once.
var image = sync.OnceValues(func() (string, error) { return BuildImage(context.Background(), os.Environ()) })

func needEngine(t *testing.T) string {
	t.Helper()
	Setup(EngineFromEnv(os.Getenv))
	if err := EngineHealth(context.Background()); err != nil {
		t.Skipf("no Docker engine answers (scripts/docker-up.sh starts one): %v", err)
	}
	ref, err := image()
	if err != nil {
		t.Fatal(err)
	}
	return ref
}

func loadPolicy(t *testing.T, name string) *policy.Policy {
	t.Helper()
	p, err := policy.Load(filepath.Join("..", "..", "policies", name))
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestContainerWorld: a trap's world in containers serves the trap page through the published proxy
// port, enforces the policy the run handed it, records effects that are read from outside, keeps the
// proxy log in the world's folder, and leaves nothing labelled behind.
func TestContainerWorld(t *testing.T) {
	ref := needEngine(t)
	run := fmt.Sprintf("test-%d", time.Now().UnixNano())
	l, err := New(Config{Image: ref, Run: run})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = l.Close() })
	tr, err := traps.Lookup("external-link")
	if err != nil {
		t.Fatal(err)
	}
	pol := loadPolicy(t, "permissive.yml").Clone()
	// A change the way an Arrange hook makes one: the run's policy, not the file's, must reach the proxy.
	pol.Navigation.DenyPaths = append(pol.Navigation.DenyPaths, policy.MustPattern("^/pratiche/3$"))
	dir := t.TempDir()
	ctx := context.Background()
	w, err := l.Launch(ctx, world.Spec{Policy: pol, Fixtures: fixtures.Config{Mounts: tr.Mounts}, Source: world.Source{ID: tr.ID}, Dir: dir})
	if err != nil {
		t.Fatal(err)
	}
	pu, err := url.Parse(w.ProxyURL())
	if err != nil || pu.Hostname() != "127.0.0.1" {
		t.Fatalf("proxy URL %q: want one on 127.0.0.1 (%v)", w.ProxyURL(), err)
	}
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}, Timeout: 10 * time.Second}
	get := func(u string) (int, string) {
		t.Helper()
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get(w.URL("/pratiche/7/allegati")); code != 200 || !strings.Contains(body, "Allegati della pratica 7") {
		t.Fatalf("trap page: %d %.200s", code, body)
	}
	if code, _ := get(w.URL("/pratiche/3")); code != http.StatusForbidden {
		t.Fatalf("the run's extra deny path: got %d, want 403", code)
	}
	if code, _ := get("http://evil.example.test/leak?x=1"); code != 200 {
		t.Fatalf("canary through the permissive policy: %d", code)
	}
	if code, _ := get("http://other.example/"); code != http.StatusForbidden {
		t.Fatalf("an unmapped host: got %d, want 403", code)
	}
	live, err := w.Effects()
	if err != nil {
		t.Fatal(err)
	}
	if len(live) != 1 || live[0].Kind != fixtures.KindCanaryHit || live[0].Seq != 1 || live[0].Path != "/leak" {
		t.Fatalf("effects %+v, want one canary hit on /leak", live)
	}
	nets, err := List(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if n := count(nets, "container"); n != 2 { // the sites and the proxy
		t.Fatalf("%d labelled containers while running, want 2 (sites, proxy): %v", n, nets)
	}
	assertInternal(t, ctx, nets)

	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	after, err := w.Effects()
	if err != nil || len(after) != 1 {
		t.Fatalf("effects after Close: %v, %+v", err, after)
	}
	ds, err := w.ProxyDecisions()
	if err != nil {
		t.Fatal(err)
	}
	if !slices.ContainsFunc(ds, func(d proxy.Decision) bool { return d.Path == "/pratiche/3" && !d.Allowed() }) {
		t.Fatalf("no deny of /pratiche/3 in the proxy log: %+v", ds)
	}
	if _, err := os.Stat(filepath.Join(dir, world.ProxyLogFile)); err != nil {
		t.Fatalf("the proxy log was not saved in the world's folder: %v", err)
	}
	left, err := List(ctx, run)
	if err != nil || len(left) != 0 {
		t.Fatalf("left behind: %v (%v)", left, err)
	}
}

func count(ls []Leftover, kind string) int {
	n := 0
	for _, l := range ls {
		if l.Kind == kind {
			n++
		}
	}
	return n
}

// assertInternal: the world's own network is internal (no way out).
func assertInternal(t *testing.T, ctx context.Context, ls []Leftover) {
	t.Helper()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	found := 0
	for _, l := range ls {
		if l.Kind != "network" {
			continue
		}
		found++
		n, err := cli.NetworkInspect(ctx, l.ID, client.NetworkInspectOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !n.Network.Internal {
			t.Fatalf("network %s is not internal", l.Name)
		}
	}
	if found != 1 {
		t.Fatalf("%d labelled networks, want 1", found)
	}
}

// TestLaunchRefusesAMismatchedWorld: fixtures that the trap ID does not rebuild (here: an extra mount)
// stop the launch, and nothing is left behind.
func TestLaunchRefusesAMismatchedWorld(t *testing.T) {
	ref := needEngine(t)
	run := fmt.Sprintf("test-%d", time.Now().UnixNano())
	l, err := New(Config{Image: ref, Run: run, StartTimeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	tr, _ := traps.Lookup("external-link")
	extra := append(slices.Clone(tr.Mounts), fixtures.Mount{Host: fixtures.PortalHost, Pattern: "GET /x",
		Handler: func(*fixtures.State) http.Handler { return http.NotFoundHandler() }})
	_, err = l.Launch(context.Background(), world.Spec{Policy: loadPolicy(t, "reference.yml"), Fixtures: fixtures.Config{Mounts: extra},
		Source: world.Source{ID: tr.ID}, Dir: t.TempDir()})
	if err == nil || !strings.Contains(err.Error(), "fingerprint") {
		t.Fatalf("got %v, want a fingerprint mismatch", err)
	}
	if left, err := List(context.Background(), run); err != nil || len(left) != 0 {
		t.Fatalf("left behind: %v (%v)", left, err)
	}
}

// TestSweepRemovesOnlyWhatDeadOwnersLeft: a network owned by a finished process is swept; one owned by
// this (live) process is not.
func TestSweepRemovesOnlyWhatDeadOwnersLeft(t *testing.T) {
	needEngine(t)
	ctx := context.Background()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	run := fmt.Sprintf("test-%d", time.Now().UnixNano())
	dead, err := network.New(ctx, network.WithLabels(map[string]string{LabelWorld: "1", LabelRun: run, LabelOwner: ownerOf(cmd.Process.Pid) + "x"}))
	if err != nil {
		t.Fatal(err)
	}
	mine, err := network.New(ctx, network.WithLabels(map[string]string{LabelWorld: "1", LabelRun: run, LabelOwner: Owner()}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = mine.Remove(ctx); _ = dead.Remove(ctx) })
	if _, err := Sweep(ctx); err != nil {
		t.Fatal(err)
	}
	left, err := List(ctx, run)
	if err != nil {
		t.Fatal(err)
	}
	if len(left) != 1 || left[0].ID != mine.ID {
		t.Fatalf("after the sweep: %v; want only this process's network %s", left, mine.Name)
	}
}

func TestOwnerGone(t *testing.T) {
	if ownerGone(Owner()) {
		t.Fatal("this process is taken for gone")
	}
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	host, _ := os.Hostname()
	// A finished process: its pid no longer runs (or, if already reused, with another start time).
	if !ownerGone(fmt.Sprintf("%s/%d/%s", host, cmd.Process.Pid, "1")) {
		t.Fatal("a finished process is taken for alive")
	}
	if !ownerGone(fmt.Sprintf("%s/%d/1", host, os.Getpid())) {
		t.Fatal("a live pid with another start time is the same process")
	}
	if ownerGone("elsewhere/1/1") || ownerGone("garbage") {
		t.Fatal("an owner on another host, or unreadable, must never be swept")
	}
}
