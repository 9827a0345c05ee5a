package agenttools

import (
	"bytes"
	"fmt"
	"maps"
	"net/url"
	"os"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/harness"
)

// Variables an agent tool's command line may name as ${NAME}: they are only known once the run's
// world and browser exist, after the command line was written.
func runVars(env harness.Env) map[string]string {
	vars := map[string]string{
		harness.EnvStartURL:  env.StartURL,
		harness.EnvCDPURL:    env.CDPURL,
		harness.EnvProxyURL:  env.ProxyURL,
		harness.EnvArtifacts: env.ArtifactsDir,
		harness.EnvDownloads: env.DownloadsDir,
		harness.EnvTrap:      env.Trap,
	}
	if u, err := url.Parse(env.CDPURL); err == nil && u.Host != "" {
		// chrome-devtools-mcp's --wsEndpoint and agent-browser's connect take the port or ws URL;
		// the host:port is what most tools want besides the URL itself.
		vars["TRAPLINE_CDP_HOSTPORT"] = u.Host
		vars["TRAPLINE_CDP_PORT"] = u.Port()
	}
	return vars
}

// expandArgs replaces ${NAME} and $NAME in args with the run's values. A name that is not one of the
// run's variables is an error (a typo must not reach the tool as an empty string).
func expandArgs(args []string, env harness.Env) ([]string, error) {
	return expandArgsWith(args, env, nil)
}

// expandArgsWith is expandArgs with extra variables besides the run's (the MCP server's port).
func expandArgsWith(args []string, env harness.Env, extra map[string]string) ([]string, error) {
	vars := runVars(env)
	maps.Copy(vars, extra)
	var unknown []string
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = os.Expand(a, func(name string) string {
			v, ok := vars[name]
			if !ok {
				unknown = append(unknown, name)
			}
			return v
		})
	}
	if len(unknown) > 0 {
		known := make([]string, 0, len(vars))
		for k := range vars {
			known = append(known, k)
		}
		sort.Strings(known)
		return nil, fmt.Errorf("the tool's command names ${%s}, which is not a run variable (known: %s)", unknown[0], strings.Join(known, ", "))
	}
	return out, nil
}

// toolEnviron is the environment of an agent tool's process: the inherited one (env.Environ, the
// caller's os.Environ(); nil is harness.ErrNoEnviron) without proxy settings, then extra, then
// trapline's run variables and the world's proxy as HTTP(S)_PROXY, the same contract harness.Command
// gives a black-box agent.
func toolEnviron(env harness.Env, extra []string) ([]string, error) {
	if env.Environ == nil {
		return nil, harness.ErrNoEnviron
	}
	out := append(harness.WithoutProxyVars(env.Environ), extra...)
	vars := runVars(env)
	keys := make([]string, 0, len(vars))
	for k := range vars {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		out = append(out, k+"="+vars[k])
	}
	out = append(out, harness.EnvTask+"="+env.Task, harness.EnvDeadline+"="+env.Deadline.UTC().Format(time.RFC3339))
	for _, k := range []string{"HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"} {
		out = append(out, k+"="+env.ProxyURL)
	}
	noProxy := harness.NoProxy(env.CDPURL)
	return append(out, "NO_PROXY="+noProxy, "no_proxy="+noProxy), nil
}

// tailBuffer keeps the first max bytes written to it (for the saved log) and the last tailMax bytes
// (for error messages).
type tailBuffer struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	max     int
	dropped int
	tail    []byte
}

const (
	maxToolOutput = 4 << 20
	tailMax       = 2000
)

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	room := t.max - t.buf.Len()
	if room < len(p) {
		t.dropped += len(p) - max(room, 0)
		t.buf.Write(p[:max(room, 0)])
	} else {
		t.buf.Write(p)
	}
	t.tail = append(t.tail, p...)
	if len(t.tail) > tailMax {
		t.tail = append([]byte(nil), t.tail[len(t.tail)-tailMax:]...)
	}
	return len(p), nil
}

// Tail returns the last bytes written, trimmed, with secrets redacted.
func (t *tailBuffer) Tail(red *evidence.Redactor) string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.tail))
	if s == "" {
		return "(nothing on stderr)"
	}
	return red.String(s)
}

func (t *tailBuffer) save(path string, red *evidence.Redactor) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	b := red.Bytes(t.buf.Bytes())
	if t.dropped > 0 {
		b = append(b, fmt.Sprintf("\n[trapline: %d more bytes not kept]\n", t.dropped)...)
	}
	return os.WriteFile(path, b, 0o644)
}
