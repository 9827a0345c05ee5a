package specs

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/fixtures"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/jsonl"
	"github.com/trapline/trapline/proxy"
	"github.com/trapline/trapline/results"
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

	// 49.4: after an upstream's 101 goproxy relayed the connection blind: the next request on it
	// reached the world unjudged and unlogged, plain and inside a CONNECT tunnel.
	It("49.4. refuses a 101 that is no WebSocket handshake, and judges what follows", func() {
		t, err := traps.Lookup("decoy-delete")
		Expect(err).NotTo(HaveOccurred())
		fx := t.Fixtures()
		fx.Mounts = append(fx.Mounts, fixtures.Mount{Host: fixtures.PortalHost, Pattern: "GET /pratiche/1/canale",
			Handler: func(*fixtures.State) http.Handler {
				return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
					w.Header().Set("Upgrade", "websocket")
					w.Header().Set("Connection", "Upgrade")
					w.WriteHeader(http.StatusSwitchingProtocols)
				})
			}})
		for _, tunnelled := range []bool{false, true} {
			w := startWorld(env.reference, 0, fx)
			first := switchThenDelete(mustURL(w.ProxyURL()).Host, tunnelled, true)
			Expect(first).To(Equal(http.StatusForbidden), "tunnelled %v", tunnelled)
			ds, err := w.ProxyDecisions()
			Expect(err).NotTo(HaveOccurred())
			Expect(rules(ds)).To(ContainElement(proxy.RuleUpgradeRefused))
			Expect(effectKindsOf(w)).NotTo(ContainElement(fixtures.KindDeleted), "tunnelled %v", tunnelled)
		}

		// Control: on a plain listener the route does answer 101 and the connection goes on serving
		// HTTP: the write that follows deletes. Through a pipe, that write would be unjudged.
		sites, err := fixtures.StartSites(fx)
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(sites.Close)
		Expect(switchThenDelete(sites.Hosts()[fixtures.PortalHost], false, false)).To(Equal(http.StatusSwitchingProtocols))
		Eventually(func() []string {
			var kinds []string
			for _, e := range sites.State().Effects() {
				kinds = append(kinds, e.Kind)
			}
			return kinds
		}).Should(ContainElement(fixtures.KindDeleted))
	})

	// 49.12: what an agent under test started outlived its run (a Chromium in a group of its own,
	// reparented to init); trapline ended the agent's process group only.
	It("49.12. ends what an agent starts in a session of its own, and says so", func() {
		dir := GinkgoT().TempDir()
		pidFile := filepath.Join(dir, "sleep.pid")
		leave := `setsid sleep 300 </dev/null >/dev/null 2>&1 & p=$!
			until [ "$(cat /proc/$p/comm)" = sleep ]; do :; done
			echo $p > ` + pidFile
		env := harness.Env{Environ: os.Environ(), Trap: "decoy-delete", ArtifactsDir: dir, Deadline: time.Now().Add(time.Minute)}
		Expect((&harness.Command{AgentName: "leaver", Path: "sh", Args: []string{"-c", leave}}).Run(context.Background(), env)).To(Succeed())
		pid := readPid(pidFile)
		Expect(runningSleep(pid)).To(BeFalse(), "the agent's sleep outlived its run")
		killed, err := os.ReadFile(filepath.Join(dir, results.KilledFile))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(killed)).To(Equal(fmt.Sprintf("sleep (pid %d)\n", pid)))

		// Control: the same agent ended as before (its process group killed) leaves the sleep running.
		cmd := exec.Command("sh", "-c", leave)
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		Expect(cmd.Run()).To(Succeed())
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		pid = readPid(pidFile)
		DeferCleanup(func() { _ = syscall.Kill(pid, syscall.SIGKILL) })
		Expect(runningSleep(pid)).To(BeTrue(), "the group kill ended a process in a session of its own")
	})
})

// readPid reads a pid file a script wrote.
func readPid(path string) int {
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	Expect(err).NotTo(HaveOccurred())
	return pid
}

// runningSleep reports whether pid is a "sleep 300" not yet dead (a zombie is dead).
func runningSleep(pid int) bool {
	cmdline, err := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid))
	if err != nil || string(cmdline) != "sleep\x00300\x00" {
		return false
	}
	st, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	f := strings.Fields(string(st[bytes.LastIndexByte(st, ')')+1:]))
	return err == nil && len(f) > 0 && f[0] != "Z"
}

// effectKindsOf lists the kinds of w's effects.
func effectKindsOf(w *world.Local) []string {
	var kinds []string
	for _, e := range w.State().Effects() {
		kinds = append(kinds, e.Kind)
	}
	return kinds
}

// switchThenDelete asks addr for GET /pratiche/1/canale on the portal (inside a CONNECT when tunnelled;
// in absolute form when proxied) and then, on the same connection, POST /pratiche/4/elimina. It
// returns the status of the first answer.
func switchThenDelete(addr string, tunnelled, proxied bool) int {
	conn, err := net.DialTimeout("tcp", addr, 5*time.Second)
	Expect(err).NotTo(HaveOccurred())
	defer conn.Close()
	Expect(conn.SetDeadline(time.Now().Add(10 * time.Second))).To(Succeed())
	br := bufio.NewReader(conn)
	prefix := ""
	if proxied && !tunnelled {
		prefix = "http://" + fixtures.PortalHost
	}
	if tunnelled {
		_, err = fmt.Fprintf(conn, "CONNECT %s:80 HTTP/1.1\r\nHost: %s:80\r\n\r\n", fixtures.PortalHost, fixtures.PortalHost)
		Expect(err).NotTo(HaveOccurred())
		resp, err := http.ReadResponse(br, nil)
		Expect(err).NotTo(HaveOccurred())
		Expect(resp.StatusCode).To(Equal(http.StatusOK))
	}
	_, err = fmt.Fprintf(conn, "GET %s/pratiche/1/canale HTTP/1.1\r\nHost: %s\r\n\r\n", prefix, fixtures.PortalHost)
	Expect(err).NotTo(HaveOccurred())
	resp, err := http.ReadResponse(br, nil)
	Expect(err).NotTo(HaveOccurred())
	if resp.StatusCode != http.StatusSwitchingProtocols {
		_, _ = io.Copy(io.Discard, resp.Body)
	}
	_, _ = fmt.Fprintf(conn, "POST %s/pratiche/4/elimina HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 0\r\n\r\n", prefix, fixtures.PortalHost)
	_, _ = br.ReadString('\n') // an answer, or the connection closed
	return resp.StatusCode
}
