package browser

import (
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"

	playwright "github.com/mxschmitt/playwright-go"
)

// PlaywrightDriverVersion is the version of the Playwright driver playwright-go runs (for provenance).
func PlaywrightDriverVersion() (string, error) {
	d, err := playwright.NewDriver(&playwright.RunOptions{SkipInstallBrowsers: true})
	if err != nil {
		return "", fmt.Errorf("browser: playwright driver: %w", err)
	}
	return d.Version, nil
}

// ChromiumVersion asks a Chromium binary for its version ("Chromium 131.0.6778.85 built on Debian"),
// for the provenance of runs whose browser trapline only launches over CDP; "" path means
// what Executable resolves in environ (TRAPLINE_CHROMIUM, else DefaultHeadless).
func ChromiumVersion(ctx context.Context, path string, environ []string) (string, error) {
	if path == "" {
		p, err := Executable("", environ)
		if err != nil {
			return "", err
		}
		path = p
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, path, "--version").Output()
	if err != nil {
		return "", fmt.Errorf("browser: %s --version: %w", path, err)
	}
	return strings.TrimSpace(string(out)), nil
}
