package browser

import (
	"fmt"
	"os"
)

// ChromiumEnv names the environment variable that selects the Chromium binary trapline launches when
// a caller gives no ExecutablePath: a path, or one of the names "chromium" (DefaultChromium) and
// "headless-shell" (HeadlessShell). Unset means the default, DefaultHeadless (DefaultChromium when
// the window is shown).
const ChromiumEnv = "TRAPLINE_CHROMIUM"

// HeadlessShell is Debian's chromium-headless-shell (apt package of the same name and version as
// chromium): the headless-only build Playwright itself prefers for headless runs. It takes the same
// flags (proxy, netlink shim, --no-sandbox), so every guard is wired the same way; the one switch it
// does not pass on to its renderers (the secure origins) is carried by a renderer wrapper
// (secureorigins.go).
const HeadlessShell = "/usr/lib/chromium/chromium-headless-shell"

// DefaultHeadless is the browser trapline launches headless when nothing selects one: the headless
// shell, about 0.57x the time per arm of chromium --headless (BENCHMARKS.md, issue 21).
const DefaultHeadless = HeadlessShell

// Executable resolves the headless Chromium binary to launch: explicit (a caller's ExecutablePath)
// when set, else TRAPLINE_CHROMIUM as environ has it (the caller passes os.Environ()), else
// DefaultHeadless. A value of TRAPLINE_CHROMIUM that names no file is an error naming the variable,
// never a silent fallback to another browser; so is a missing default (install it: make setup).
func Executable(explicit string, environ []string) (string, error) {
	return executableFor(explicit, false, environ)
}

// executableFor is Executable for a headed browser too: the headless shell has no window, so the
// default for a headed run is DefaultChromium.
func executableFor(explicit string, headed bool, environ []string) (string, error) {
	if explicit != "" {
		return checkExecutable(explicit, "ExecutablePath")
	}
	v := getenv(environ, ChromiumEnv)
	switch v {
	case "":
		if headed {
			return checkExecutable(DefaultChromium, "the default for a headed browser")
		}
		return checkExecutable(DefaultHeadless, "the default")
	case "chromium":
		v = DefaultChromium
	case "headless-shell", "chromium-headless-shell":
		v = HeadlessShell
	}
	return checkExecutable(v, ChromiumEnv)
}

func checkExecutable(path, from string) (string, error) {
	fi, err := os.Stat(path)
	if err != nil {
		return "", fmt.Errorf("browser: chromium at %s (from %s): %w (install Debian's chromium and chromium-headless-shell: make setup)", path, from, err)
	}
	if fi.IsDir() || fi.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("browser: chromium at %s (from %s): not an executable file", path, from)
	}
	return path, nil
}
