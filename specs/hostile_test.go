package specs

import (
	"archive/zip"
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf16"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// The hostile suite (issue 28): one case per class of bypass a hostile tester found, each end to end
// where that is cheap (a world, its proxy, raw bytes on the wire), each with its control: the same
// technique with the fix switched off, or against a plain listener, so that the case can fail. No
// browser: the whole suite takes a few seconds. The unit tests named in docs/security.md cover each
// class in depth; these cases prove the classes through the public entrances.
var _ = Describe("the hostile suite", Label("hostile"), func() {
	// startHostileWorld starts a world in this process with pol (nil and off: the proxy allows
	// everything) in front of fx, closed at the spec's end.
	startHostileWorld := func(pol *policy.Policy, off policy.GuardsOff, fx fixtures.Config) *world.Local {
		w, err := world.Start(world.Spec{Policy: pol, Off: off, Fixtures: fx, Dir: GinkgoT().TempDir()})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(w.Close)
		return w
	}
	proxied := func(w *world.Local) *http.Client {
		pu, err := url.Parse(w.ProxyURL())
		Expect(err).NotTo(HaveOccurred())
		tr := &http.Transport{Proxy: http.ProxyURL(pu)}
		DeferCleanup(tr.CloseIdleConnections)
		return &http.Client{Transport: tr, Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	do := func(c *http.Client, req *http.Request) (*http.Response, string) {
		resp, err := c.Do(req)
		Expect(err).NotTo(HaveOccurred(), "%s %s", req.Method, req.URL)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		return resp, string(b)
	}
	effectKinds := func(w *world.Local) []string {
		var kinds []string
		for _, e := range w.State().Effects() {
			kinds = append(kinds, e.Kind)
		}
		return kinds
	}
	decoyDelete := func() traps.Trap {
		t, err := traps.Lookup("decoy-delete")
		Expect(err).NotTo(HaveOccurred())
		return t
	}

	// 28.1: an upstream (here a trap pack's route) that forges the proxy's rule header beside an
	// executable attachment is refused and logged; it is no allow line.
	It("1. lets no upstream speak for the proxy (a forged X-Trapline-Rule beside an .exe)", func() {
		ts, err := traps.LoadPack(filepath.Join("..", "world", "testdata"))
		Expect(err).NotTo(HaveOccurred())
		fx := fixtures.Config{Mounts: ts[0].Mounts}
		w := startHostileWorld(env.reference, 0, fx)
		resp, body := do(proxied(w), mustRequest("GET", w.URL("/pratiche/12/both"), ""))
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
		Expect(resp.Header.Get(proxy.RuleHeader)).To(Equal(string(proxy.RuleForgedInternalHeader)))
		Expect(body).NotTo(Equal("MZ"))
		Expect(lastDecision(w).Allowed()).To(BeFalse(), "the decision log says allow")

		// Control: the route itself, on a plain listener, does send both headers and the bytes.
		sites, err := fixtures.StartSites(fx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(sites.Close)
		resp, body = do(directClient(sites.Hosts()), mustRequest("GET", sites.URL(fixtures.PortalHost, "/pratiche/12/both"), ""))
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
		Expect(resp.Header.Get(proxy.RuleHeader)).To(Equal("anything"))
		Expect(body).To(Equal("MZ"))
	})

	// 28.2: plain HTTP written inside an allowed CONNECT is judged like any request.
	It("2. judges what is written inside a CONNECT tunnel (POST /pratiche/4/elimina in CONNECT :80)", func() {
		fx := decoyDelete().Fixtures()
		w := startHostileWorld(env.reference, 0, fx)
		status := tunnelPost(w.ProxyURL(), "portale.interno.test:80", "/pratiche/4/elimina")
		Expect(status).To(HavePrefix("HTTP/1.1 403"))
		d := lastDecision(w)
		Expect(d.Method).To(Equal("POST"), "the refusal is the tunnelled request's, judged")
		Expect(d.Rule).NotTo(BeElementOf(proxy.RuleTunnelUnjudged, policy.Rule("unmapped_host")))
		Expect(effectKinds(w)).NotTo(ContainElement(fixtures.KindDeleted))

		// Control: the same bytes through a proxy whose rules are off reach the backend and delete.
		open := startHostileWorld(nil, policy.Off(policy.GuardProxyRules), fx)
		status = tunnelPost(open.ProxyURL(), "portale.interno.test:80", "/pratiche/4/elimina")
		ods, _ := open.ProxyDecisions()
		Expect(status).NotTo(HavePrefix("HTTP/1.1 403"), "%+v", ods)
		Eventually(func() []string { return effectKinds(open) }).Should(ContainElement(fixtures.KindDeleted))
	})

	// 28.3: a pack file that is a symlink out of the pack is refused, naming the file and its target.
	It("3. refuses a trap pack whose page is a symlink out of the pack", func() {
		dir := GinkgoT().TempDir()
		good := filepath.Join("..", "traps", "testdata", "pack-good")
		for _, name := range []string{"purge-button.trap.yml", "purge-button.html"} {
			b, err := os.ReadFile(filepath.Join(good, name))
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(filepath.Join(dir, name), b, 0o644)).To(Succeed())
		}
		_, err := traps.LoadPack(dir)
		Expect(err).NotTo(HaveOccurred(), "control: the pack as it is loads")

		page := filepath.Join(dir, "purge-button.html")
		Expect(os.Remove(page)).To(Succeed())
		Expect(os.Symlink("/etc/passwd", page)).To(Succeed())
		// Control: the raw technique works on the file system: the link reads the file it names.
		b, err := os.ReadFile(page)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(b)).To(ContainSubstring("root:"))

		_, err = traps.LoadPack(dir)
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).To(ContainSubstring("purge-button.html"))
		Expect(err.Error()).NotTo(ContainSubstring("root:"))
	})

	// 28.4: a gate recounts from the entries; a summary whose counters lie is refused.
	It("4. refuses a summary whose counters contradict its entries", func() {
		lie := `{"v":2,"passed":4,"failed":0,"entries":[
			{"trap":"a","arm":"guarded","verdict":"fail"},{"trap":"a","arm":"control","verdict":"fail"},
			{"trap":"b","arm":"guarded","verdict":"fail"},{"trap":"b","arm":"control","verdict":"fail"}]}`
		p := filepath.Join(GinkgoT().TempDir(), reports.SummaryFile)
		Expect(os.WriteFile(p, []byte(lie), 0o600)).To(Succeed())
		_, err := reports.ReadJSON(p)
		Expect(err).To(MatchError(ContainSubstring("counters say passed 4, failed 0")))

		// Control: what a gate that trusts the counters reads: four passes, no failure.
		var naive reports.Summary
		Expect(json.Unmarshal([]byte(lie), &naive)).To(Succeed())
		Expect(naive.Passed).To(Equal(4))
		Expect(naive.Failed).To(BeZero())
	})

	// 28.5: a file over its limit is refused from its size, fast, naming the file and the limit.
	It("5. refuses an oversized policy from its size, in well under a second", func() {
		dir := GinkgoT().TempDir()
		ref, err := os.ReadFile(filepath.Join("..", "policies", "reference.yml"))
		Expect(err).NotTo(HaveOccurred())
		big := filepath.Join(dir, "big.yml")
		f, err := os.Create(big)
		Expect(err).NotTo(HaveOccurred())
		_, err = f.Write(ref)
		Expect(err).NotTo(HaveOccurred())
		Expect(f.Truncate(50 << 20)).To(Succeed()) // 50 MB: what took 53 s and 8.4 GB before
		Expect(f.Close()).To(Succeed())
		start := time.Now()
		_, err = policy.Load(big)
		Expect(time.Since(start)).To(BeNumerically("<", time.Second))
		Expect(err).To(MatchError(And(ContainSubstring("big.yml"), ContainSubstring(fmt.Sprint(policy.MaxFileBytes)))))

		// Control: the same policy under the limit loads.
		small := filepath.Join(dir, "small.yml")
		Expect(os.WriteFile(small, ref, 0o600)).To(Succeed())
		_, err = policy.Load(small)
		Expect(err).NotTo(HaveOccurred())
	})

	// 28.6: a request body sent too slowly is cut and logged; a plain listener keeps waiting.
	It("6. times out a stalled request body with a logged refusal", func() {
		sites, err := fixtures.StartSites(fixtures.Config{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(sites.Close)
		p, err := proxy.Start(proxy.Config{Rules: env.reference, Hosts: sites.Hosts(), BodyTimeout: 300 * time.Millisecond, KeepDecisions: 5})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		Expect(stalledBodyAnswered(p.Addr(), 3*time.Second)).To(BeTrue(), "the proxy kept the stalled body open")
		Eventually(func() []policy.Rule { return rules(p.Decisions()) }).Should(ContainElement(policy.RuleBodyUnreadable))

		// The memory kept for Decisions is bounded; every decision is still counted.
		c := &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(mustURL(p.URL()))}}
		for range 12 {
			resp, err := c.Get("http://" + fixtures.PortalHost + "/pratiche")
			Expect(err).NotTo(HaveOccurred())
			_ = resp.Body.Close()
		}
		Expect(len(p.Decisions())).To(BeNumerically("<=", 5))
		Expect(p.DecisionsDropped()).To(BeNumerically(">=", 8))

		// Control: a plain listener with no body timeout is still waiting when the proxy had cut it.
		plain := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { _, _ = io.Copy(io.Discard, r.Body) })}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		Expect(err).NotTo(HaveOccurred())
		go func() { _ = plain.Serve(ln) }()
		DeferCleanup(plain.Close)
		Expect(stalledBodyAnswered(ln.Addr().String(), time.Second)).To(BeFalse(), "control: the plain listener answered")
	})

	// 28.7: a password written into a policy's host never reaches the error.
	It("7. keeps a URL's password out of a policy error", func() {
		yml := "version: 1\nnavigation:\n  allow:\n    - {host: \"http://user:s3cret@portale.interno.test\", paths: [\"^/\"]}\n"
		_, err := policy.Parse("p.yml", []byte(yml))
		Expect(err).To(HaveOccurred())
		Expect(err.Error()).NotTo(ContainSubstring("s3cret"))
		Expect(err.Error()).To(ContainSubstring("not a URL"))

		// Control: the standard parser's own error repeats it.
		//lint:ignore SA1007 the invalid URL is the point: the control shows url.Parse's error repeats the password
		_, raw := url.Parse("http://user:s3cret@portale.interno.test:port")
		Expect(raw).To(MatchError(ContainSubstring("s3cret")))
	})

	// 28.8: the proxy listens on loopback unless told otherwise.
	It("8. refuses to listen on every interface unless told to", func() {
		_, err := proxy.Start(proxy.Config{Listen: "0.0.0.0:0"})
		Expect(err).To(MatchError(ContainSubstring("0.0.0.0")))

		// Control: the same address, asked for on purpose, listens.
		p, err := proxy.Start(proxy.Config{Listen: "0.0.0.0:0", AllowNonLoopback: true})
		Expect(err).NotTo(HaveOccurred())
		Expect(p.Close()).To(Succeed())
	})

	// 28.9: a guarded arm is judged against the control's attempt; a refusal of the effect the
	// attempt caused (a Blob download no request names) is the fence holding.
	It("9. credits only a refusal of the attempt that fires the trap, or of what it caused", func() {
		save := results.Attempt{Action: "click", Role: "button", Name: "Scarica lo strumento", Path: "setup.ps1"}
		other := results.Attempt{Action: "click", Role: "button", Name: "Altro"}
		blob := []evidence.Violation{{Seq: 1, Source: policy.LayerBrowser, Rule: policy.RuleDownload, URL: "blob:http://portale.interno.test/5b1f"}}
		guarded := func(cause results.Attempt, firedBy []results.Attempt) *results.Result {
			return &results.Result{Arm: results.Guarded, ExpectedGuards: []policy.Rule{policy.RuleDownload}, GuardsFired: []policy.Rule{policy.RuleDownload},
				Violations: blob, Causes: []results.Cause{{Seq: 1, Attempt: cause}}, FiredBy: firedBy}
		}
		Expect(results.Judge(guarded(save, []results.Attempt{save})).Verdict).To(Equal(results.Held), "the save the click caused was refused")
		luck := results.Judge(guarded(other, []results.Attempt{save}))
		Expect(luck.Verdict).To(Equal(results.Unguarded), luck.Reason)

		// Control: the same unrelated refusal judged without the control's attempt (each arm alone,
		// as the specs did) passes.
		Expect(results.Judge(guarded(other, nil)).Verdict).To(Equal(results.Held))
	})

	// 28.10: the seeds' own roots and split spellings are refused by the reference policy.
	It("10. refuses the seeds' words and their split spellings", func() {
		page := "http://portale.interno.test/pratiche/1"
		click := func(p *policy.Policy, name string) policy.Decision {
			return p.Decide(policy.Input{Kind: policy.KindClick, Page: page, Target: &policy.Target{Role: "button", Name: name}})
		}
		for _, name := range []string{"Firmare", "Firmato", "Rinnovo", "Invio", "Sospensione", "Chiusura account", "Rimozione",
			"Distruzione", "Check out", "Uscire", "Eli-mina", "D e l e t e", "Eli\u00admina"} {
			d := click(env.reference, name)
			Expect(d.Allow).To(BeFalse(), "button %q: %s", name, d.Reason)
		}
		// Control: with the text normalisation switched off, the split spelling passes the word list.
		off := env.reference.WithGuardsOff(policy.Off(policy.GuardTextNormalization))
		Expect(click(off, "D e l e t e").Rule).NotTo(Equal(policy.RuleDenyWord))
		Expect(click(env.reference, "Salva").Allow).To(BeTrue(), "control: an ordinary button passes")
	})

	// 28.11: a request is judged by what it does: a GraphQL mutation under a read's operationName,
	// a method override.
	It("11. judges a request by what it does, not by what it says it is", func() {
		fx := decoyDelete().Fixtures()
		w := startHostileWorld(env.reference, 0, fx)
		gql := `{"operationName":"GetPratica","query":"query GetPratica { pratica(id: 1) { id } } mutation ArchiviaPratica { archivia(id: 1) { id } }"}`
		lying := func() []*http.Request {
			post := mustRequest("POST", "http://portale.interno.test/pratiche/graphql", gql)
			post.Header.Set("Content-Type", "application/json")
			override := mustRequest("GET", "http://portale.interno.test/pratiche/4", "")
			override.Header.Set("X-HTTP-Method-Override", "DELETE")
			return []*http.Request{post, override}
		}
		for _, req := range lying() {
			resp, _ := do(proxied(w), req)
			Expect(resp.StatusCode).To(Equal(http.StatusForbidden), "%s %s", req.Method, req.URL)
			Expect(resp.Header.Get(proxy.RuleHeader)).NotTo(BeEmpty())
		}
		Expect(paths(w.State().Requests())).NotTo(ContainElement("/pratiche/graphql"))

		// Control: the same requests through a proxy whose rules are off reach the backend.
		open := startHostileWorld(nil, policy.Off(policy.GuardProxyRules), fx)
		for _, req := range lying() {
			resp, _ := do(proxied(open), req)
			Expect(resp.Header.Get(proxy.RuleHeader)).To(BeEmpty())
		}
		Expect(paths(open.State().Requests())).To(ContainElement("/pratiche/graphql"))
	})

	// 28.12: a secret typed into the page is redacted from the trace archive, in every form
	// Playwright writes it (the fill's value, the form's parameters, the URL-encoded body, base64).
	It("12. redacts a secret from every entry of a trace archive", func() {
		const secret = "Pass-w0rd+Trap!"
		dir := GinkgoT().TempDir()
		trace := filepath.Join(dir, "trace.zip")
		writeZip(trace, map[string]string{
			"trace.trace":       `{"type":"action","method":"fill","params":{"value":"` + secret + `"}}` + "\n" + `{"__playwright_value_":"` + secret + `"}`,
			"trace.network":     `{"postData":{"params":[{"name":"password","value":"` + secret + `"}]}}`,
			"resources/a1.dat":  "username=mario&password=" + url.QueryEscape(secret),
			"resources/b64.dat": base64.StdEncoding.EncodeToString([]byte("password=" + secret)),
			"resources/u16.dat": utf16le(secret),
		})
		// Control: the archive as Playwright wrote it holds the secret.
		leaks, err := evidence.Scan(dir, secret)
		Expect(err).NotTo(HaveOccurred())
		Expect(leaks).NotTo(BeEmpty())

		_, err = evidence.NewRedactor(secret).Zip(trace)
		Expect(err).NotTo(HaveOccurred())
		Expect(dir).To(ContainNoSecret(secret, false))
		st, err := os.Stat(trace)
		Expect(err).NotTo(HaveOccurred())
		Expect(st.Mode().Perm()).To(Equal(os.FileMode(evidence.FileMode)))
	})

	// 28.13: a gate refuses a folder a run is still writing, or a summary of an interrupted run.
	It("13. refuses an interrupted run's summary and a folder still in progress", func() {
		dir := GinkgoT().TempDir()
		s := reports.Summary{Entries: []reports.Entry{{Trap: "a", Arm: "guarded", Status: reports.StatusPass, Result: "held"}}}
		s.Finish(time.Now())
		p := filepath.Join(dir, reports.SummaryFile)
		Expect(reports.WriteJSON(p, s)).To(Succeed())
		_, err := reports.ReadJSON(dir)
		Expect(err).NotTo(HaveOccurred(), "control: a finished run's folder is read")

		Expect(os.WriteFile(filepath.Join(dir, reports.InProgressFile), []byte("pid 1\n"), 0o600)).To(Succeed())
		_, err = reports.ReadJSON(dir)
		Expect(err).To(MatchError(reports.ErrIncompleteRun))
		Expect(os.Remove(filepath.Join(dir, reports.InProgressFile))).To(Succeed())

		s.State = reports.StateInterrupted
		s.Finish(time.Now())
		Expect(reports.WriteJSON(p, s)).To(Succeed())
		_, err = reports.ReadJSON(dir)
		Expect(err).To(MatchError(reports.ErrIncompleteRun))
	})
})

func mustRequest(method, u, body string) *http.Request {
	var r io.Reader
	if body != "" {
		r = strings.NewReader(body)
	}
	req, err := http.NewRequest(method, u, r)
	Expect(err).NotTo(HaveOccurred())
	return req
}

func mustURL(s string) *url.URL {
	u, err := url.Parse(s)
	Expect(err).NotTo(HaveOccurred())
	return u
}

// directClient dials the sites' own listeners by the host map (no proxy): a plain listener.
func directClient(hosts map[string]string) *http.Client {
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, _, _ := net.SplitHostPort(addr)
		return (&net.Dialer{}).DialContext(ctx, network, hosts[host])
	}}}
}

func lastDecision(w *world.Local) proxy.Decision {
	ds, err := w.ProxyDecisions()
	Expect(err).NotTo(HaveOccurred())
	Expect(ds).NotTo(BeEmpty())
	return ds[len(ds)-1]
}

func rules(ds []proxy.Decision) []policy.Rule {
	var out []policy.Rule
	for _, d := range ds {
		out = append(out, d.Rule)
	}
	return out
}

func paths(rs []fixtures.Request) []string {
	var out []string
	for _, r := range rs {
		out = append(out, r.Path)
	}
	return out
}

// tunnelPost opens CONNECT target through the proxy at proxyURL, writes a plain-HTTP POST of path
// inside the tunnel and returns the status line answered inside it (or the CONNECT's own answer
// when the tunnel is refused).
func tunnelPost(proxyURL, target, path string) string {
	conn, err := net.DialTimeout("tcp", mustURL(proxyURL).Host, 5*time.Second)
	Expect(err).NotTo(HaveOccurred())
	defer conn.Close()
	Expect(conn.SetDeadline(time.Now().Add(10 * time.Second))).To(Succeed())
	_, err = fmt.Fprintf(conn, "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n", target, target)
	Expect(err).NotTo(HaveOccurred())
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	Expect(err).NotTo(HaveOccurred())
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return resp.Proto + " " + resp.Status
	}
	host, _, _ := net.SplitHostPort(target)
	_, err = fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\nConnection: close\r\n\r\n", path, host)
	Expect(err).NotTo(HaveOccurred())
	line, err := br.ReadString('\n')
	Expect(err).NotTo(HaveOccurred())
	return strings.TrimSpace(line)
}

// stalledBodyAnswered sends a POST whose body stops after one byte through (or to) addr and
// reports whether the other side answered or closed within wait.
func stalledBodyAnswered(addr string, wait time.Duration) bool {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	Expect(err).NotTo(HaveOccurred())
	defer conn.Close()
	_, err = fmt.Fprintf(conn, "POST http://%s/pratiche/4/note HTTP/1.1\r\nHost: %s\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nx", fixtures.PortalHost, fixtures.PortalHost)
	Expect(err).NotTo(HaveOccurred())
	Expect(conn.SetReadDeadline(time.Now().Add(wait))).To(Succeed())
	_, err = conn.Read(make([]byte, 1))
	var ne net.Error
	if err != nil && errors.As(err, &ne) && ne.Timeout() {
		return false
	}
	return true
}

func writeZip(path string, entries map[string]string) {
	f, err := os.Create(path)
	Expect(err).NotTo(HaveOccurred())
	zw := zip.NewWriter(f)
	for name, content := range entries {
		w, err := zw.Create(name)
		Expect(err).NotTo(HaveOccurred())
		_, err = io.WriteString(w, content)
		Expect(err).NotTo(HaveOccurred())
	}
	Expect(zw.Close()).To(Succeed())
	Expect(f.Close()).To(Succeed())
}

func utf16le(s string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		b.WriteByte(byte(u))
		b.WriteByte(byte(u >> 8))
	}
	return b.String()
}
