package specs

import (
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// Issue 49 class 8, neighbours and direct dials: a world answers its own proxy only. Two worlds run
// side by side; a process that dials a world's portal listener directly (around its proxy), or
// through the other world's proxy mark, is refused, and the world records it as a forbidden effect
// in every trap. The control: the same dial on sites started without the proxy's mark deletes.
var _ = Describe("a world answers its own proxy only", Label("hostile"), func() {
	start := func() *world.Local {
		w, err := world.Start(world.Spec{Dir: GinkgoT().TempDir(), Off: policy.Off(policy.GuardProxyRules)}) // the proxy allows every world host
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(w.Close)
		return w
	}
	post := func(c *http.Client, target, path string, header http.Header) int {
		req, err := http.NewRequest(http.MethodPost, target+path, strings.NewReader(""))
		Expect(err).NotTo(HaveOccurred())
		req.Host = fixtures.PortalHost
		for k, vs := range header {
			req.Header[k] = vs
		}
		resp, err := c.Do(req)
		Expect(err).NotTo(HaveOccurred(), "POST %s%s", target, path)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	kinds := func(st *fixtures.State) []string {
		var out []string
		for _, e := range st.Effects() {
			out = append(out, e.Kind)
		}
		return out
	}
	client := &http.Client{Timeout: 20 * time.Second, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

	It("49.8: refuses and records a direct dial and a neighbour's, and lets its proxy through", func() {
		a, b := start(), start()
		direct := "http://" + a.Listeners()[fixtures.PortalHost]

		Expect(post(client, direct, "/pratiche/4/elimina", nil)).To(Equal(http.StatusForbidden))
		forged := http.Header{proxy.WorldTokenHeader: {"guessed"}}
		Expect(post(client, direct, "/pratiche/5/elimina", forged)).To(Equal(http.StatusForbidden))
		Expect(kinds(a.State())).To(Equal([]string{fixtures.KindFenceBypassed, fixtures.KindFenceBypassed}))
		Expect(a.State().Effects()[0].Detail).To(ContainSubstring("without the world's proxy"))

		// A neighbour's proxy reaches its own world only: world B deletes, world A is untouched.
		pu, err := url.Parse(b.ProxyURL())
		Expect(err).NotTo(HaveOccurred())
		viaB := &http.Client{Timeout: 20 * time.Second, Transport: &http.Transport{Proxy: http.ProxyURL(pu)},
			CheckRedirect: client.CheckRedirect}
		Expect(post(viaB, "http://"+fixtures.PortalHost, "/pratiche/6/elimina", nil)).To(BeNumerically("<", 400))
		Expect(kinds(b.State())).To(ContainElement(fixtures.KindDeleted))
		Expect(kinds(a.State())).NotTo(ContainElement(fixtures.KindDeleted))
		t, err := traps.Lookup("decoy-delete")
		Expect(err).NotTo(HaveOccurred())
		Expect(t.Observed(a.State().Effects())).To(HaveLen(2), "every bypass is forbidden in every trap")
	})

	It("49.8 control: sites without the proxy's mark answer a direct dial, and it deletes", func() {
		sites, err := fixtures.StartSites(fixtures.Config{})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(sites.Close)
		Expect(post(client, "http://"+sites.Hosts()[fixtures.PortalHost], "/pratiche/4/elimina", nil)).To(BeNumerically("<", 400))
		Expect(kinds(sites.State())).To(ContainElement(fixtures.KindDeleted))
	})
})
