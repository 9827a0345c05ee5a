package specs

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/internal/jsonl"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

// The hostile suite, round 2 (issue 49), the robustness classes of the fence: each end to end
// through a world's public entrances, each with its control.
var _ = Describe("the hostile suite, round 2 (robustness)", Label("hostile"), func() {
	startWorld := func(pol *policy.Policy, off policy.GuardsOff, fx fixtures.Config) *world.Local {
		w, err := world.Start(world.Spec{Policy: pol, Off: off, Fixtures: fx, Dir: GinkgoT().TempDir()})
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(w.Close)
		return w
	}

	// 49.10: one fetch of a 600 KB URL wrote a 1.2 MB decision line, over the 1 MiB line reader:
	// both arms BROKEN, their effects lost. The line is now bounded at the writer.
	It("49.10. keeps a run readable and its effect recorded after a page's 600 KB URL", func() {
		w := startWorld(nil, policy.Off(policy.GuardProxyRules), fixtures.Config{})
		pu, err := url.Parse(w.ProxyURL())
		Expect(err).NotTo(HaveOccurred())
		tr := &http.Transport{Proxy: http.ProxyURL(pu)}
		DeferCleanup(tr.CloseIdleConnections)
		long := "/collect/" + strings.Repeat("%01", 200<<10) // 600 KB on the wire, 1.2 MB as JSON
		req, err := http.NewRequest(http.MethodGet, "http://"+fixtures.EvilHost+long, nil)
		Expect(err).NotTo(HaveOccurred())
		resp, err := (&http.Client{Transport: tr, Timeout: 20 * time.Second}).Do(req)
		Expect(err).NotTo(HaveOccurred())
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()

		ds, err := w.ProxyDecisions()
		Expect(err).NotTo(HaveOccurred(), "the proxy log reads back")
		Expect(ds).NotTo(BeEmpty())
		d := ds[len(ds)-1]
		Expect(d.Host).To(Equal(fixtures.EvilHost))
		Expect(d.Path).To(ContainSubstring("…[cut "))
		var hit *fixtures.Effect
		for _, e := range w.State().Effects() {
			if e.Kind == fixtures.KindCanaryHit {
				hit = &e
			}
		}
		Expect(hit).NotTo(BeNil(), "the canary hit is an effect still")
		Expect(len(hit.Path)).To(BeNumerically("<=", jsonl.MaxField))
		Expect(hit.Path).To(HavePrefix("/collect/\x01"))

		// Control: the same decision written whole, as the proxy wrote it before, is a line the
		// world's reader cannot hold; the reader names it and still reads the lines around it.
		whole := d
		u, err := url.PathUnescape(long)
		Expect(err).NotTo(HaveOccurred())
		whole.Path = u
		line, err := json.Marshal(whole)
		Expect(err).NotTo(HaveOccurred())
		Expect(len(line)).To(BeNumerically(">", 1<<20))
		short, err := json.Marshal(d)
		Expect(err).NotTo(HaveOccurred())
		log := bytes.Join([][]byte{short, line, short}, []byte("\n"))
		read, err := world.ReadDecisions(bytes.NewReader(log), "control.jsonl")
		Expect(err).To(MatchError(evidence.ErrLineTooLong))
		Expect(err.Error()).To(HavePrefix("read proxy log control.jsonl:2: "))
		Expect(read).To(HaveLen(2))
		Expect(read[1].Host).To(Equal(fixtures.EvilHost))
	})

	// 49.11: a pack page that is a FIFO hung `traps lint` and `run --traps-dir` forever.
	It("49.11. refuses a trap pack whose page is a FIFO, at once", func() {
		dir := GinkgoT().TempDir()
		for _, f := range []string{"purge-button.trap.yml", "purge-button.html"} {
			b, err := os.ReadFile(filepath.Join("..", "traps", "testdata", "pack-good", f))
			Expect(err).NotTo(HaveOccurred())
			Expect(os.WriteFile(filepath.Join(dir, f), b, 0o644)).To(Succeed())
		}
		page := filepath.Join(dir, "purge-button.html")
		Expect(os.Remove(page)).To(Succeed())
		Expect(syscall.Mkfifo(page, 0o644)).To(Succeed())
		done := make(chan error, 1)
		go func() { _, err := traps.LoadPack(dir); done <- err }()
		var err error
		Eventually(done).WithTimeout(5 * time.Second).Should(Receive(&err))
		Expect(err).To(MatchError(traps.ErrNotRegular))
		Expect(err.Error()).To(ContainSubstring(page + ": a named pipe (FIFO)"))

		// Control: the same FIFO opened as a plain file blocks until a writer comes (here the spec,
		// which then closes both ends).
		opened := make(chan *os.File, 1)
		go func() {
			defer GinkgoRecover()
			f, err := os.Open(page)
			Expect(err).NotTo(HaveOccurred())
			opened <- f
		}()
		Consistently(opened).WithTimeout(300 * time.Millisecond).ShouldNot(Receive())
		w, err := os.OpenFile(page, os.O_WRONLY, 0)
		Expect(err).NotTo(HaveOccurred())
		var r *os.File
		Eventually(opened).Should(Receive(&r))
		Expect(w.Close()).To(Succeed())
		Expect(r.Close()).To(Succeed())
	})
})
