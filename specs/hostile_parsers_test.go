package specs

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/vektah/gqlparser/v2/ast"
	"github.com/vektah/gqlparser/v2/parser"

	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/world"
)

// The hostile suite, round 2 (issue 49), the parser classes: what the proxy reads from a response's
// headers and from a request's body must be every reading a client or a backend may make. Each case
// runs raw requests through a world's proxy under the reference policy (with one write added where
// the class needs an endpoint), and its control sends the same bytes through a proxy whose rules
// are off, where the technique works: the backend (a mount of the spec, reading as real backends
// do) records the forbidden effect. No browser.
var _ = Describe("the hostile suite: parsers", Label("hostile"), func() {
	start := func(pol *policy.Policy, off policy.GuardsOff, fx fixtures.Config) *world.Local {
		w, err := world.Start(world.Spec{Policy: pol, Off: off, Fixtures: fx, Dir: GinkgoT().TempDir()})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(w.Close)
		return w
	}
	send := func(w *world.Local, method, path, contentType, body string) (*http.Response, string) {
		pu, err := url.Parse(w.ProxyURL())
		Expect(err).NotTo(HaveOccurred())
		tr := &http.Transport{Proxy: http.ProxyURL(pu)}
		DeferCleanup(tr.CloseIdleConnections)
		req := mustRequest(method, w.URL(path), body)
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		resp, err := (&http.Client{Transport: tr, Timeout: 20 * time.Second}).Do(req)
		Expect(err).NotTo(HaveOccurred(), "%s %s", method, path)
		defer resp.Body.Close()
		b, err := io.ReadAll(resp.Body)
		Expect(err).NotTo(HaveOccurred())
		return resp, string(b)
	}
	effectsOf := func(w *world.Local, kind string) int {
		n := 0
		for _, e := range w.State().Effects() {
			if e.Kind == kind {
				n++
			}
		}
		return n
	}
	withWrite := func(yml string) *policy.Policy {
		extra, err := policy.Parse("spec-write.yml", []byte("version: 1\nmode: act\nnavigation:\n  allow:\n    - {host: portale.interno.test, paths: [\"^/\"]}\nactions:\n  writes:\n"+yml))
		Expect(err).NotTo(HaveOccurred())
		p := env.reference.Clone()
		p.Actions.Writes = append(p.Actions.Writes, extra.Actions.Writes...)
		return p
	}

	// 49.3: an executable named only in a spelling mime.ParseMediaType drops (filename* in
	// latin-1, an RFC 2047 word), behind a Content-Type parameter it cannot parse, or in the second
	// of two Content-Disposition headers, is cut at the proxy.
	It("49.3 cuts an executable named in any spelling a browser reads from the headers", func() {
		fx := fixtures.Config{Mounts: []fixtures.Mount{{Host: fixtures.PortalHost, Pattern: "GET /pratiche/20/allegato/{doc}", Handler: spellingsHandler}}}
		w := start(env.reference, 0, fx)
		for _, doc := range spellingDocs {
			resp, body := send(w, "GET", "/pratiche/20/allegato/"+doc, "", "")
			Expect(resp.StatusCode).To(Equal(http.StatusForbidden), doc)
			Expect(resp.Header.Get(proxy.RuleHeader)).To(Equal(string(policy.RuleResponseDownload)), doc)
			Expect(body).NotTo(HavePrefix("MZ"), doc)
		}

		// Why it escaped: Go's reading of the first two names no executable at all.
		for _, cd := range []string{spellingHeaders["latin1"], spellingHeaders["parola"]} {
			_, params, err := mime.ParseMediaType(cd)
			Expect(err).NotTo(HaveOccurred())
			Expect(params["filename"]).NotTo(HaveSuffix(".bat"), cd)
		}
		// Control: with the proxy's rules off every spelling delivers the executable.
		open := start(nil, policy.Off(policy.GuardProxyRules), fx)
		for _, doc := range spellingDocs {
			resp, body := send(open, "GET", "/pratiche/20/allegato/"+doc, "", "")
			Expect(resp.StatusCode).To(Equal(http.StatusOK), doc)
			Expect(body).To(HavePrefix("MZ"), doc)
		}
	})

	// 49.5: a JSON key given twice (or spelled with an escape) reads "chiusa" to a last-copy
	// reader and "eliminata" to the backend, which keeps the first copy.
	It("49.5 refuses a body a backend may read otherwise than the rules", func() {
		fx := fixtures.Config{Mounts: []fixtures.Mount{{Host: fixtures.PortalHost, Pattern: "POST /pratiche/{id}/api-stato", Handler: firstCopyHandler}}}
		pol := withWrite("    - {method: POST, host: portale.interno.test, path: \"^/pratiche/[0-9]+/api-stato$\", form: {stato: [aperta, in lavorazione, chiusa]}}\n")
		bodies := []string{`{"stato":"eliminata","stato":"chiusa"}`, `{"st\u0061to":"eliminata","stato":"chiusa"}`, `{"stato":{"x":"eliminata"},"stato":"chiusa"}`}
		w := start(pol, 0, fx)
		for i, b := range bodies {
			resp, _ := send(w, "POST", "/pratiche/"+strconv.Itoa(4+i)+"/api-stato", "application/json", b)
			Expect(resp.StatusCode).To(Equal(http.StatusForbidden), b)
			Expect(resp.Header.Get(proxy.RuleHeader)).To(Equal(string(policy.RuleAmbiguousRequest)), b)
		}
		Expect(paths(w.State().Requests())).NotTo(ContainElement(HaveSuffix("/api-stato")))
		resp, _ := send(w, "POST", "/pratiche/9/api-stato", "application/json", `{"stato":"chiusa"}`)
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "the plain write still passes")

		// Control: with the proxy's rules off the first two delete (the third is refused by the
		// backend itself: its first copy is no string).
		open := start(nil, policy.Off(policy.GuardProxyRules), fx)
		for i, b := range bodies[:2] {
			send(open, "POST", "/pratiche/"+strconv.Itoa(4+i)+"/api-stato", "application/json", b)
		}
		Eventually(func() int { return effectsOf(open, fixtures.KindDeleted) }).Should(Equal(2))
	})

	// 49.6: a mutation named like the allowed read's operation archives through an operations rule
	// that listed names.
	It("49.6 judges a GraphQL operation by its type and root fields, not its name", func() {
		fx := fixtures.Config{Mounts: []fixtures.Mount{{Host: fixtures.PortalHost, Pattern: "POST /pratiche/graphql", Handler: graphQLHandler}}}
		pol := withWrite("    - {method: POST, host: portale.interno.test, path: \"^/pratiche/graphql$\", operations: [getPratica]}\n")
		lying := `{"operationName":"getPratica","query":"mutation getPratica { archivia(id: 4) { id } }"}`
		w := start(pol, 0, fx)
		resp, _ := send(w, "POST", "/pratiche/graphql", "application/json", lying)
		Expect(resp.StatusCode).To(Equal(http.StatusForbidden))
		Expect(resp.Header.Get(proxy.RuleHeader)).To(Equal(string(policy.RuleWriteOperation)))
		Expect(lastDecision(w).Reason).To(ContainSubstring(`root field "archivia"`))
		resp, _ = send(w, "POST", "/pratiche/graphql", "application/json", `{"query":"query getPratica { getPratica(id: 4) { id } }"}`)
		Expect(resp.StatusCode).To(Equal(http.StatusOK), "the read the entry names still passes")
		Expect(effectsOf(w, fixtures.KindArchived)).To(BeZero())

		// Control: with the proxy's rules off the same request archives pratica 4.
		open := start(nil, policy.Off(policy.GuardProxyRules), fx)
		send(open, "POST", "/pratiche/graphql", "application/json", lying)
		Eventually(func() int { return effectsOf(open, fixtures.KindArchived) }).Should(Equal(1))
	})
})

// spellingHeaders are the Content-Disposition values of the 49.3 case, by document.
var spellingHeaders = map[string]string{
	"latin1": `attachment; filename*=iso-8859-1''aggiorna.bat`,
	"parola": `attachment; filename="=?UTF-8?B?YWdnaW9ybmEuYmF0?="`,
}

var spellingDocs = []string{"latin1", "parola", "parametro", "doppio"}

// spellingsHandler serves an executable's first bytes under each spelling (what reaches the client
// is the evidence: the proxy cuts a refused response after its headers).
func spellingsHandler(*fixtures.State) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc := r.PathValue("doc")
		switch doc {
		case "latin1", "parola":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Set("Content-Disposition", spellingHeaders[doc])
		case "parametro":
			w.Header().Set("Content-Type", "application/x-msdownload; trapline")
		case "doppio":
			w.Header().Set("Content-Type", "application/octet-stream")
			w.Header().Add("Content-Disposition", `attachment; filename="visura.pdf"`)
			w.Header().Add("Content-Disposition", `attachment; filename="aggiorna.bat"`)
		default:
			http.NotFound(w, r)
			return
		}
		_, _ = w.Write([]byte("MZ trapline stand-in, harmless\r\n"))
	})
}

// firstCopyHandler is a backend whose JSON reader keeps the first copy of a repeated key (as a
// streaming reader that stops at the first match does): "eliminata" deletes, a state sets it.
func firstCopyHandler(st *fixtures.State) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := strconv.Atoi(r.PathValue("id"))
		stato, ok := firstStringKey(r.Body, "stato")
		if err != nil || !ok {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		if stato == "eliminata" {
			_, err = st.Delete(id, fixtures.OriginOf(r))
		} else {
			_, err = st.SetStato(id, stato, fixtures.OriginOf(r))
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
		}
	})
}

// firstStringKey returns the first top-level value of key in a JSON object, when it is a string.
func firstStringKey(body io.Reader, key string) (string, bool) {
	dec := json.NewDecoder(body)
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return "", false
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return "", false
		}
		var v json.RawMessage
		if dec.Decode(&v) != nil {
			return "", false
		}
		if t == key {
			var s string
			return s, json.Unmarshal(v, &s) == nil
		}
	}
	return "", false
}

// graphQLHandler is a GraphQL backend that runs what the document's operations select: every
// mutation root field "archivia" archives the pratica of its id argument.
func graphQLHandler(st *fixtures.State) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Query string `json:"query"`
		}
		b, err := io.ReadAll(r.Body)
		if err == nil {
			err = json.NewDecoder(bytes.NewReader(b)).Decode(&req)
		}
		var doc *ast.QueryDocument
		if err == nil {
			doc, err = parser.ParseQuery(&ast.Source{Input: req.Query})
		}
		if err != nil {
			http.Error(w, "bad request", http.StatusBadRequest)
			return
		}
		for _, op := range doc.Operations {
			for _, sel := range op.SelectionSet {
				if f, ok := sel.(*ast.Field); ok && op.Operation == ast.Mutation && f.Name == "archivia" {
					archive(st, r, f)
				}
			}
		}
		_, _ = io.WriteString(w, `{"data":{}}`)
	})
}

func archive(st *fixtures.State, r *http.Request, f *ast.Field) {
	arg := f.Arguments.ForName("id")
	if arg == nil || arg.Value == nil {
		return
	}
	id, err := strconv.Atoi(strings.TrimSpace(arg.Value.Raw))
	if err == nil {
		_, err = st.Archive(id, fixtures.OriginOf(r))
	}
	if err != nil && !errors.Is(err, fixtures.ErrInvalidStato) {
		GinkgoWriter.Printf("archive %d: %v\n", id, err)
	}
}
