package browser

import (
	"fmt"
	"strings"
)

// The browser reads no process environment of its own (but for what playwright-go forces,
// install.go): the commands pass theirs, os.Environ(), as Options.Environ, CDPOptions.Environ or
// RemoteOptions.Environ. From it come TRAPLINE_CHROMIUM (when no ExecutablePath is given),
// TRAPLINE_TRACE (a session's default trace detail), CC (the netlink shim's compiler), and Chromium
// starts in it, with the netlink shim added.

// getenv is the value of key in environ (KEY=VALUE pairs; the last one wins, as for exec.Cmd.Env),
// "" when it is absent.
func getenv(environ []string, key string) string {
	v := ""
	for _, kv := range environ {
		if k, val, ok := strings.Cut(kv, "="); ok && k == key {
			v = val
		}
	}
	return v
}

// needEnviron refuses a nil environment, named by field (Options.Environ, ...): nil is not taken as
// an empty environment, in which Chromium would find no HOME or display and TRAPLINE_CHROMIUM would
// be silently ignored. []string{} is an empty one, on purpose.
func needEnviron(field string, environ []string) error {
	if environ == nil {
		return fmt.Errorf("browser: %s is nil: pass os.Environ() (Chromium starts in it; %s and %s are read from it), or []string{} for an empty environment",
			field, ChromiumEnv, TraceEnv)
	}
	return nil
}
