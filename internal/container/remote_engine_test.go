package container

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// secondEngine is a Docker engine of the test's own: a second dockerd with its own socket, data root,
// exec root, pid file, containerd namespace, bridge interface and address pool, so it shares nothing
// with the machine's engine (which other runs use). It leaves the host's iptables and sysctls to that
// engine (--iptables=false --ip-forward=false; published ports go through docker-proxy on loopback)
// but for one tagged rule that lets its own pool's traffic through (see below).
type secondEngine struct {
	host   string // unix:///.../docker.sock, for DOCKER_HOST
	cmd    *exec.Cmd
	bridge string
	dirs   []string
	log    string
}

// startSecondEngine starts the engine and waits until it answers, or skips naming the missing
// prerequisite (root, dockerd, the docker CLI, ip, iptables).
func startSecondEngine(t *testing.T) *secondEngine {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("a second dockerd needs root")
	}
	for _, tool := range []string{"dockerd", "docker", "ip", "iptables"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("a second dockerd needs %s (scripts/docker-up.sh installs docker.io): %v", tool, err)
		}
	}
	// Short paths: the socket path has a length limit, and containerd nests its own under exec-root.
	root, err := os.MkdirTemp("", "trl-eng-")
	if err != nil {
		t.Fatal(err)
	}
	e := &secondEngine{host: "unix://" + filepath.Join(root, "docker.sock"), dirs: []string{root}, log: filepath.Join(root, "dockerd.log")}
	// The bridge and the address pool are picked from the pid, so two runs of this test do not meet.
	n := os.Getpid()%200 + 20
	e.bridge = fmt.Sprintf("trl%d", os.Getpid())
	if len(e.bridge) > 15 {
		e.bridge = e.bridge[:15]
	}
	ip := func(args ...string) {
		t.Helper()
		if out, err := exec.Command("ip", args...).CombinedOutput(); err != nil {
			t.Fatalf("ip %s: %v: %s", strings.Join(args, " "), err, out)
		}
	}
	ip("link", "add", "name", e.bridge, "type", "bridge")
	t.Cleanup(func() { _ = exec.Command("ip", "link", "del", e.bridge).Run() })
	ip("addr", "add", fmt.Sprintf("10.213.%d.1/24", n), "dev", e.bridge)
	ip("link", "set", e.bridge, "up")
	pool := fmt.Sprintf("10.%d.0.0/16", 100+n%100)
	// The machine's engine sets FORWARD's policy to DROP, and bridged traffic passes FORWARD
	// (br_netfilter): without a rule the proxy container cannot reach the sites on the world's network.
	// One rule in DOCKER-USER (the chain that engine leaves to users) accepts traffic inside this
	// engine's address pool only, tagged with this test's pid and removed at the end.
	if exec.Command("iptables", "-S", "DOCKER-USER").Run() == nil {
		rule := []string{"DOCKER-USER", "-s", pool, "-d", pool, "-m", "comment", "--comment", fmt.Sprintf("trapline-test-engine-%d", os.Getpid()), "-j", "ACCEPT"}
		if out, err := exec.Command("iptables", append([]string{"-I"}, rule...)...).CombinedOutput(); err != nil {
			t.Fatalf("iptables -I %s: %v: %s", strings.Join(rule, " "), err, out)
		}
		t.Cleanup(func() { _ = exec.Command("iptables", append([]string{"-D"}, rule...)...).Run() })
	}
	logf, err := os.Create(e.log)
	if err != nil {
		t.Fatal(err)
	}
	e.cmd = exec.Command("dockerd",
		"--host", e.host,
		"--data-root", filepath.Join(root, "data"),
		"--exec-root", filepath.Join(root, "exec"),
		"--pidfile", filepath.Join(root, "docker.pid"),
		"--containerd-namespace", "trapline-test-"+fmt.Sprint(os.Getpid()),
		"--containerd-plugins-namespace", "trapline-test-plugins-"+fmt.Sprint(os.Getpid()),
		"--bridge", e.bridge,
		"--iptables=false", "--ip-forward=false", "--ip-masq=false",
		"--default-address-pool", "base="+pool+",size=24",
		"--label", "trapline.test=second-engine",
	)
	e.cmd.Stdout, e.cmd.Stderr = logf, logf
	e.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := e.cmd.Start(); err != nil {
		t.Fatalf("start dockerd: %v", err)
	}
	exited := make(chan error, 1)
	go func() { exited <- e.cmd.Wait(); _ = logf.Close() }()
	t.Cleanup(func() { e.stop(t, exited) })
	// Wait on the engine itself: `docker version` answers (each try bounded), up to 2 minutes.
	deadline := time.Now().Add(2 * time.Minute)
	tick := time.NewTicker(250 * time.Millisecond) // paces the retries; the condition is the answer
	defer tick.Stop()
	for {
		if err := e.docker("version", "--format", "{{.Server.Version}}"); err == nil {
			return e
		}
		select {
		case err := <-exited:
			exited <- err
			t.Fatalf("dockerd exited (%v); see %s:\n%s", err, e.log, tail(e.log))
		case <-tick.C:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the second dockerd did not answer in 2 minutes; see %s:\n%s", e.log, tail(e.log))
		}
	}
}

// docker runs the docker CLI against this engine.
func (e *secondEngine) docker(args ...string) error {
	_, err := e.output(args...)
	return err
}

func (e *secondEngine) output(args ...string) (string, error) {
	cmd := exec.Command("docker", append([]string{"--host", e.host}, args...)...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("docker %s: %w: %s", strings.Join(args, " "), err, errb.String())
	}
	return strings.TrimSpace(out.String()), nil
}

// stop ends the engine (SIGTERM, then SIGKILL after a minute) and removes its folders.
func (e *secondEngine) stop(t *testing.T, exited chan error) {
	_ = e.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-exited:
	case <-time.After(time.Minute):
		_ = syscall.Kill(-e.cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}
	for _, d := range e.dirs {
		if err := os.RemoveAll(d); err != nil {
			t.Logf("remove %s: %v", d, err)
		}
	}
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 3000 {
		b = b[len(b)-3000:]
	}
	return string(b)
}

// TestContainerWorldOnARemoteEngine: container mode against a Docker engine on another socket, through
// DOCKER_HOST (which testcontainers honours), as a CI runner's remote engine would be used. The test
// starts its own second dockerd and runs TestContainerWorld in a child process with DOCKER_HOST
// pointing at it (testcontainers reads the engine's address once per process). The world's image is
// then on the second engine, which started empty, and nothing labelled is left there.
func TestContainerWorldOnARemoteEngine(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: starts a second Docker engine")
	}
	if os.Getenv("TRAPLINE_TEST_CHILD") != "" {
		t.Skip("in the child process")
	}
	e := startSecondEngine(t)
	if out, err := e.output("images", "-q"); err != nil || out != "" {
		t.Fatalf("the second engine does not start empty: %q, %v", out, err)
	}
	child := exec.Command(os.Args[0], "-test.run", "^TestContainerWorld$", "-test.count", "1", "-test.v")
	child.Env = append(os.Environ(), "DOCKER_HOST="+e.host, "TRAPLINE_TEST_CHILD=1")
	out, err := child.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS: TestContainerWorld") {
		t.Fatalf("TestContainerWorld with DOCKER_HOST=%s: %v\n%s\ndockerd log:\n%s", e.host, err, out, tail(e.log))
	}
	imgs, err := e.output("images", "--filter", "label="+LabelImage, "--format", "{{.Repository}}:{{.Tag}}")
	if err != nil || !strings.Contains(imgs, "trapline-world:") {
		t.Fatalf("the world's image is not on the second engine: %q, %v", imgs, err)
	}
	left, err := e.output("ps", "-aq", "--filter", "label="+LabelWorld)
	if err != nil || left != "" {
		t.Fatalf("containers left on the second engine: %q, %v", left, err)
	}
	nets, err := e.output("network", "ls", "-q", "--filter", "label="+LabelWorld)
	if err != nil || nets != "" {
		t.Fatalf("networks left on the second engine: %q, %v", nets, err)
	}
	t.Logf("world ran on %s (image %s)", e.host, imgs)
}
