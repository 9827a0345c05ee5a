package browser

import (
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Chromium aborts every connection still being set up with net::ERR_NETWORK_CHANGED when a network
// interface or address of the host appears or goes away, proxied connections to 127.0.0.1 included.
// A Docker engine adds and removes interfaces whenever a network or a container starts or stops, so
// with two Ginkgo processes one process's container world broke a WebSocket probe in the other's
// browser (CI, stop 13). Measured here: 12 to 14 of 25 WebSocket handshakes through a loopback proxy
// failed that way while docker created and removed networks; 0 of 25 with the shim below.
//
// The shim is a tiny C library, preloaded into Chromium, that refuses NETLINK_ROUTE sockets; Chromium
// then stops tracking interfaces and treats itself as always online. trapline's browser reaches the
// world only through its proxy on loopback, so no interface change is ever relevant to it.

//go:embed nonetlink/nonetlink.c
var noNetlinkSource []byte

// ErrNoCompiler is returned when the netlink shim must be built and no C compiler is found.
var ErrNoCompiler = errors.New("no C compiler (cc or $CC) on PATH")

// noNetlinkShim is the netlink shim in the user cache folder, built there by the C compiler environ
// names (CC) when it is not there yet.
func noNetlinkShim(environ []string) (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("browser: netlink shim: no cache folder: %w", err)
	}
	return buildNoNetlinkShim(filepath.Join(dir, "trapline"), getenv(environ, "CC"))
}

// buildNoNetlinkShim returns the path of the netlink shim in dir, compiling it with the C compiler
// (cc, $CC as the caller's environment has it; "" is cc) when dir does not hold this version yet. The
// file name carries a hash of the source and the architecture, and the library is written under a
// temporary name and renamed, so parallel processes sharing dir never see half a file.
func buildNoNetlinkShim(dir, cc string) (string, error) {
	sum := sha256.Sum256(append([]byte(runtime.GOOS+"/"+runtime.GOARCH+"\n"), noNetlinkSource...))
	lib := filepath.Join(dir, "nonetlink-"+hex.EncodeToString(sum[:6])+".so")
	if _, err := os.Stat(lib); err == nil {
		return lib, nil
	}
	if cc == "" {
		cc = "cc"
	}
	if _, err := exec.LookPath(cc); err != nil {
		return "", fmt.Errorf("browser: build netlink shim: %w: install gcc (make setup) or set FollowNetworkChanges", ErrNoCompiler)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("browser: netlink shim folder: %w", err)
	}
	tmp, err := os.MkdirTemp(dir, "build-")
	if err != nil {
		return "", fmt.Errorf("browser: netlink shim folder: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	src, out := filepath.Join(tmp, "nonetlink.c"), filepath.Join(tmp, "nonetlink.so")
	if err := os.WriteFile(src, noNetlinkSource, 0o644); err != nil {
		return "", fmt.Errorf("browser: netlink shim source: %w", err)
	}
	if msg, err := exec.Command(cc, "-shared", "-fPIC", "-O2", "-o", out, src, "-ldl").CombinedOutput(); err != nil {
		return "", fmt.Errorf("browser: build netlink shim with %s: %w: %s", cc, err, strings.TrimSpace(string(msg)))
	}
	if err := os.Rename(out, lib); err != nil {
		return "", fmt.Errorf("browser: install netlink shim: %w", err)
	}
	return lib, nil
}

// chromiumEnv returns the environment Chromium is started with: env (the caller's, Options.Environ),
// plus the netlink shim in LD_PRELOAD unless follow is set (a preload already there is kept, after
// the shim).
func chromiumEnv(env []string, follow bool) ([]string, error) {
	if follow {
		return env, nil
	}
	lib, err := noNetlinkShim(env)
	if err != nil {
		return nil, err
	}
	preload := lib
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "LD_PRELOAD="); ok {
			if v != "" {
				preload += " " + v
			}
			continue
		}
		out = append(out, kv)
	}
	return append(out, "LD_PRELOAD="+preload), nil
}

// envMap turns KEY=VALUE pairs into the map Playwright's launch options take.
func envMap(env []string) map[string]string {
	m := make(map[string]string, len(env))
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok {
			m[k] = v
		}
	}
	return m
}
