package container

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/world"
)

// buildAppImage builds the test app (testdata/app, static) into an image FROM scratch, as a user
// would ship a staging app; nothing is pulled.
func buildAppImage(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "app")
	// No -trimpath: the test builds' flags, so the standard library compiled for them is reused.
	cmd := exec.Command("go", "build", "-o", bin, "./testdata/app")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build testdata/app: %v\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	ref := "trapline-testapp:" + hex.EncodeToString(sum[:6])
	ctx := context.Background()
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if _, err := cli.ImageInspect(ctx, ref); err == nil {
		return ref
	}
	bc, err := tarContext(map[string][]byte{"Dockerfile": []byte("FROM scratch\nCOPY app /app\nENTRYPOINT [\"/app\"]\n"), "app": data})
	if err != nil {
		t.Fatal(err)
	}
	res, err := cli.ImageBuild(ctx, bc, client.ImageBuildOptions{Tags: []string{ref}, Remove: true, ForceRemove: true, Labels: map[string]string{LabelImage: "1"}})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	if err := buildErr(res.Body); err != nil {
		t.Fatal(err)
	}
	return ref
}

// TestAppImageBehindTheWorld: a user's app shipped as an image FROM scratch starts labelled, answers
// on its published loopback port, and an embedded world serves it under its own host name through
// the proxy, recording what reached it (observer upstream). Closing leaves nothing; a missing image
// and a bad port are refused before anything starts.
func TestAppImageBehindTheWorld(t *testing.T) {
	needEngine(t)
	ref := buildAppImage(t)
	run := "test-app-" + strings.ReplaceAll(time.Now().Format("150405.000000000"), ".", "")
	ctx := context.Background()
	app, err := StartApp(ctx, AppConfig{Image: ref, Port: "8080", Run: run})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = app.Close() })
	if !strings.HasPrefix(app.URL(), "http://127.0.0.1:") {
		t.Fatalf("app URL %s: want a loopback port", app.URL())
	}

	w, err := world.Start(world.Spec{Off: policy.Off(policy.GuardProxyRules), Dir: t.TempDir(),
		Fixtures: fixtures.Config{Upstreams: []fixtures.Upstream{{Host: "app.example.test", URL: app.URL()}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	pu, _ := url.Parse(w.ProxyURL())
	hc := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(pu)}, Timeout: 20 * time.Second}
	resp, err := hc.Post("http://app.example.test/api/items/delete", "text/plain", nil)
	if err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("POST through the proxy: %v %v", resp, err)
	}
	resp.Body.Close()
	resp, err = hc.Get("http://app.example.test/api/items")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Items []string }
	err = json.NewDecoder(resp.Body).Decode(&doc)
	resp.Body.Close()
	if err != nil || len(doc.Items) != 2 {
		t.Fatalf("items after one delete: %v %v", doc.Items, err)
	}
	es, _ := w.Effects()
	var posts int
	for _, e := range es {
		if e.Observer == fixtures.ObserverUpstream && e.Kind == "http.post" && e.Path == "/api/items/delete" {
			posts++
		}
	}
	if posts != 1 {
		t.Fatalf("upstream effects %+v: want one http.post of /api/items/delete", es)
	}

	if err := app.Close(); err != nil {
		t.Fatal(err)
	}
	if left, err := List(ctx, run); err != nil || len(left) != 0 {
		t.Fatalf("left behind: %v (%v)", left, err)
	}
	if _, err := StartApp(ctx, AppConfig{Image: "trapline-no-such-app:0", Port: "8080", Run: run}); err == nil || !strings.Contains(err.Error(), "not on the engine") {
		t.Fatalf("a missing image: %v", err)
	}
	if _, err := StartApp(ctx, AppConfig{Image: ref, Port: "http", Run: run}); err == nil || !strings.Contains(err.Error(), `port "http"`) {
		t.Fatalf("a bad port: %v", err)
	}
	if left, err := List(ctx, run); err != nil || len(left) != 0 {
		t.Fatalf("left behind after refusals: %v (%v)", left, err)
	}
}
