package main

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/trapline/trapline/world"
)

func TestServeMountsTheTrapBehindItsProxy(t *testing.T) {
	w, stop := startCommand(t, "serve", func(ctx context.Context, ready chan<- *world.Local) error {
		return serve(ctx, nil, nil, "external-link", "../../policies/reference.yml", "127.0.0.1:0", t.TempDir(), io.Discard, ready)
	})
	px, _ := url.Parse(w.ProxyURL())
	c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(px)}}
	get := func(u string) (int, string) {
		resp, err := c.Get(u)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := get("http://portale.interno.test/pratiche/7/allegati"); code != 200 || !strings.Contains(body, "Allegati della pratica 7") {
		t.Fatalf("trap page: %d %s", code, body)
	}
	if code, _ := get("http://evil.example.test/"); code != http.StatusForbidden {
		t.Fatalf("the reference policy must deny the outside: got %d", code)
	}
	stop()
	if code := run([]string{"serve", "--trap", "no-such-trap"}, io.Discard, io.Discard); code != exitUsage {
		t.Fatalf("unknown trap: exit %d", code)
	}
}
