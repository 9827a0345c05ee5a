package browser

import (
	"errors"
	"fmt"
	"os"
	"os/exec"

	playwright "github.com/mxschmitt/playwright-go"
)

// DefaultChromium is Debian's Chromium, the only browser trapline launches.
const DefaultChromium = "/usr/bin/chromium"

// forcedLoopbackEnv, when set, makes Playwright stop proxying loopback: the browser could then reach
// 127.0.0.1 around the proxy. trapline refuses to run with it.
const forcedLoopbackEnv = "PLAYWRIGHT_DISABLE_FORCED_CHROMIUM_PROXIED_LOOPBACK"

// ErrLoopbackBypass is returned when the environment would let loopback traffic bypass the proxy.
var ErrLoopbackBypass = errors.New(forcedLoopbackEnv + " is set: loopback would bypass the proxy")

// refuseLoopbackBypass is every launch's first check: Playwright reads forcedLoopbackEnv from the
// process environment itself, so this check has to as well (it is the one place that does).
func refuseLoopbackBypass() error {
	if os.Getenv(forcedLoopbackEnv) != "" {
		return ErrLoopbackBypass
	}
	return nil
}

// useSystemNode points playwright-go at the machine's Node.js; it would otherwise download one.
func useSystemNode() error {
	if os.Getenv("PLAYWRIGHT_NODEJS_PATH") != "" {
		return nil
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return fmt.Errorf("browser: Node.js not found on PATH (playwright's driver needs it): %w", err)
	}
	return os.Setenv("PLAYWRIGHT_NODEJS_PATH", node)
}

// Install installs Playwright's driver (playwright-core from the npm registry) for the system Node.js
// and builds the netlink shim (see Options.FollowNetworkChanges) with the C compiler environ names
// (CC; the caller passes os.Environ()), so that a missing compiler shows at setup rather than at the
// first launch. It never downloads a browser. It is idempotent and fast when both are already there.
func Install(environ []string) error {
	if err := useSystemNode(); err != nil {
		return err
	}
	if err := playwright.Install(&playwright.RunOptions{SkipInstallBrowsers: true, Verbose: false}); err != nil {
		return fmt.Errorf("browser: install playwright driver: %w", err)
	}
	if _, err := noNetlinkShim(environ); err != nil {
		return err
	}
	return nil
}
