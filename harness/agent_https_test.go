package harness

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/proxy"
)

// httpsAgent is an external agent that checks what it was told about HTTPS: TRAPLINE_CA is the CA
// its browser trusts and its proxy signs with.
type httpsAgent struct{ report func(Env) error }

func (a httpsAgent) Name() string                           { return "https-check" }
func (a httpsAgent) Run(ctx context.Context, env Env) error { return a.report(env) }

// TestBlackboxHTTPSIsJudgedWithTheWorldsCA: a black-box run's world intercepts HTTPS with a CA of
// the run alone; the agent gets its certificate as TRAPLINE_CA (Env.CAFile). An HTTP client that
// trusts that file reaches the portal over https:// through the proxy and is judged request by
// request (/admin: 403 deny_path under the reference policy); the same client without it is refused
// the certificate (the control: nothing else trusts the CA). The browser at TRAPLINE_CDP_URL trusts
// it alone: an https:// page of the world loads there, without an interstitial.
func TestBlackboxHTTPSIsJudgedWithTheWorldsCA(t *testing.T) {
	trap := blackboxTrap(t)
	ref, err := policies.Named(policies.Reference)
	if err != nil {
		t.Fatal(err)
	}
	var checked []string
	agent := httpsAgent{report: func(env Env) error {
		pem, err := os.ReadFile(env.CAFile)
		if err != nil {
			return fmt.Errorf("TRAPLINE_CA: %w", err)
		}
		pool := x509.NewCertPool()
		if !pool.AppendCertsFromPEM(pem) {
			return errors.New("TRAPLINE_CA is no PEM certificate")
		}
		pu, _ := url.Parse(env.ProxyURL)
		client := func(roots *x509.CertPool) *http.Client {
			return &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(pu), TLSClientConfig: &tls.Config{RootCAs: roots}}}
		}
		start := strings.Replace(env.StartURL, "http://", "https://", 1)
		base := strings.TrimSuffix(start, "/pratiche/4")
		for _, c := range []struct {
			url  string
			want int
			rule string
		}{{start, http.StatusOK, ""}, {base + "/admin", http.StatusForbidden, string(policy.RuleDenyPath)}} {
			resp, err := client(pool).Get(c.url)
			if err != nil {
				return fmt.Errorf("GET %s trusting TRAPLINE_CA: %w", c.url, err)
			}
			_, _ = io.Copy(io.Discard, resp.Body)
			_ = resp.Body.Close()
			if resp.StatusCode != c.want || resp.Header.Get(proxy.RuleHeader) != c.rule {
				return fmt.Errorf("GET %s: %d %s=%q, want %d %q", c.url, resp.StatusCode, proxy.RuleHeader, resp.Header.Get(proxy.RuleHeader), c.want, c.rule)
			}
			checked = append(checked, c.url)
		}
		if resp, err := client(x509.NewCertPool()).Get(start); err == nil {
			_ = resp.Body.Close()
			return fmt.Errorf("control: a client that does not trust TRAPLINE_CA got %d over HTTPS", resp.StatusCode)
		}
		title, err := cdpTitle(env.CDPURL, start)
		if err != nil {
			return err
		}
		if strings.Contains(strings.ToLower(title), "privacy") || title == "" || strings.HasPrefix(title, "https://") {
			return fmt.Errorf("the agent's browser did not load %s (title %q): it does not trust the world's CA", start, title)
		}
		checked = append(checked, "browser: "+title)
		return nil
	}}
	res, err := RunAgent(context.Background(), Options{Environ: os.Environ(), OutDir: t.TempDir(), AgentTimeout: 60 * time.Second, BlackboxPolicy: ref}, trap, agent)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(res.AgentExit, "exit 0") {
		t.Fatalf("the agent's checks failed: %s (done: %q)", res.AgentExit, checked)
	}
	if len(checked) != 3 {
		t.Fatalf("checked %q", checked)
	}
}

// cdpTitle opens u in a new tab of the browser at cdp and returns the tab's title once it has
// loaded (DevTools' HTTP endpoints: /json/new, /json/list).
func cdpTitle(cdp, u string) (string, error) {
	req, _ := http.NewRequest(http.MethodPut, cdp+"/json/new?"+u, nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return "", fmt.Errorf("CDP /json/new: %w", err)
	}
	var tab struct{ ID string }
	err = json.NewDecoder(resp.Body).Decode(&tab)
	_ = resp.Body.Close()
	if err != nil {
		return "", fmt.Errorf("CDP /json/new: %w", err)
	}
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(cdp + "/json/list")
		if err != nil {
			return "", fmt.Errorf("CDP /json/list: %w", err)
		}
		var tabs []struct{ ID, Title, URL string }
		err = json.NewDecoder(resp.Body).Decode(&tabs)
		_ = resp.Body.Close()
		if err != nil {
			return "", fmt.Errorf("CDP /json/list: %w", err)
		}
		for _, tb := range tabs {
			if tb.ID == tab.ID && tb.Title != "" && tb.Title != tb.URL && !strings.HasPrefix(tb.Title, "https://") {
				return tb.Title, nil
			}
		}
		time.Sleep(200 * time.Millisecond) // DevTools' HTTP list has no wait: poll it
	}
	return "", fmt.Errorf("the tab of %s never got a title", u)
}
