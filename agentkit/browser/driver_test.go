package browser

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	playwright "github.com/mxschmitt/playwright-go"
)

// installedDriver is the installed driver's command for args (node, the real cli.js, args), or a skip
// (a failure in CI) when make setup has not installed it.
func installedDriver(t *testing.T, args ...string) *exec.Cmd {
	t.Helper()
	if _, err := PlaywrightCoreDir(); err != nil {
		if os.Getenv(requireChromiumEnv) != "" {
			t.Fatalf("%s is set but the Playwright driver is not installed: %v", requireChromiumEnv, err)
		}
		t.Skip("needs the Playwright driver (make setup)")
	}
	d, err := playwright.NewDriver(&playwright.RunOptions{SkipInstallBrowsers: true})
	if err != nil {
		t.Fatal(err)
	}
	return d.Command(args...)
}

// The shim answers playwright-go's version check with what the driver's own CLI prints, and
// playwright.Run accepts it: the check still compares the installed driver's version.
func TestDriverShimAnswersTheVersionCheckAsTheDriver(t *testing.T) {
	want, err := installedDriver(t, "--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	opts, err := driverShim(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if opts.DriverDirectory == "" {
		t.Fatal("no shim: the driver runs from its own folder")
	}
	d, err := playwright.NewDriver(opts)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.Command("--version").Output()
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("the shim says %q, the driver %q", got, want)
	}
	pw, err := playwright.Run(opts)
	if err != nil {
		t.Fatalf("playwright.Run through the shim: %v", err)
	}
	if err := pw.Stop(); err != nil {
		t.Fatal(err)
	}
}

// Where playwright-go would not run the shim's cli.js (PLAYWRIGHT_CLI_PATH names one), the driver
// runs as it is; without PLAYWRIGHT_NODEJS_PATH the shim's node is the driver's own, and without
// that either playwright.Run names what is missing in the driver's own folder.
func TestDriverShimStandsAsidePlaywrightsOwnVariables(t *testing.T) {
	cli := installedDriver(t, "--version").Args[1]
	t.Setenv("PLAYWRIGHT_CLI_PATH", cli)
	opts, err := driverShim(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if opts.DriverDirectory != "" {
		t.Fatalf("PLAYWRIGHT_CLI_PATH is set, yet the driver runs from %s", opts.DriverDirectory)
	}

	t.Setenv("PLAYWRIGHT_CLI_PATH", "")
	t.Setenv("PLAYWRIGHT_NODEJS_PATH", "")
	own := filepath.Join(filepath.Dir(filepath.Dir(cli)), "node")
	dir := t.TempDir()
	if opts, err = driverShim(dir); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(own); err != nil { // no node of the driver's own (this machine's Node.js runs it)
		if opts.DriverDirectory != "" {
			t.Fatalf("no node at %s, yet the driver runs from %s", own, opts.DriverDirectory)
		}
		return
	}
	target, err := os.Readlink(filepath.Join(dir, "node"))
	if err != nil {
		t.Fatalf("no node beside the shim: %v", err)
	}
	if target != own {
		t.Fatalf("the shim's node is %s, want the driver's own %s", target, own)
	}
}
