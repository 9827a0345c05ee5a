package browser

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	playwright "github.com/mxschmitt/playwright-go"
)

// runDriver starts the Playwright driver. playwright.Run first checks the driver's version by running
// `node cli.js --version`, which loads the whole of playwright-core's CLI to print one line: about
// 0.7 s of CPU and 0.6-0.8 s of wall time before every driver start (every trapline run, every test
// process; BENCHMARKS.md, "Session 22"). runDriver points playwright-go at a folder of its own whose
// cli.js answers that check from the same driver's package.json, where the real CLI reads the
// version it prints, and hands every other command (run-driver) to the real cli.js. The check still
// compares the installed driver's version with the one playwright-go wants; a driver that does not
// start fails at run-driver, with the same error. When the driver is not where a shim can stand in
// for it (PLAYWRIGHT_CLI_PATH names a cli.js of its own), playwright.Run runs as it is.
func runDriver() (*playwright.Playwright, error) {
	dir, err := os.MkdirTemp("", "trapline-driver-")
	if err != nil {
		return nil, fmt.Errorf("browser: driver shim folder: %w", err)
	}
	defer func() { _ = os.RemoveAll(dir) }() // node has read the shim once run-driver is up
	opts, err := driverShim(dir)
	if err != nil {
		return nil, err
	}
	return playwright.Run(opts)
}

// driverShim writes the version-answering cli.js under dir and returns the options that run the
// driver through it, or the default options when playwright-go would not run it.
func driverShim(dir string) (*playwright.RunOptions, error) {
	def := &playwright.RunOptions{Verbose: false}
	node, cli, err := driverCommand(&playwright.RunOptions{SkipInstallBrowsers: true, Verbose: false})
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(filepath.Join(filepath.Dir(cli), "package.json")); err != nil {
		return def, nil // not an installed driver: playwright.Run says what is missing
	}
	shim := &playwright.RunOptions{Verbose: false, DriverDirectory: dir}
	shimNode, shimCLI, err := driverCommand(shim)
	if err != nil {
		return nil, err
	}
	if shimCLI != filepath.Join(dir, "package", "cli.js") {
		return def, nil // PLAYWRIGHT_CLI_PATH: playwright-go runs that cli.js whatever the folder
	}
	if shimNode != node { // no PLAYWRIGHT_NODEJS_PATH: the driver's own node, next to its cli
		if _, err := os.Stat(node); err != nil {
			return def, nil // playwright.Run says what is missing, naming the driver's own folder
		}
		if err := os.Symlink(node, shimNode); err != nil {
			return nil, fmt.Errorf("browser: driver shim: %w", err)
		}
	}
	quoted, err := json.Marshal(cli) // a JavaScript string literal
	if err != nil {
		return nil, fmt.Errorf("browser: driver shim: %w", err)
	}
	src := "// trapline (agentkit/browser/driver.go): playwright-go's version check, answered from the\n" +
		"// driver's package.json without loading its CLI; every other command runs the real cli.js.\n" +
		"const cli = " + string(quoted) + ";\n" +
		"if (process.argv.length === 3 && process.argv[2] === '--version') {\n" +
		"  const pkg = require(require('path').join(require('path').dirname(cli), 'package.json'));\n" +
		"  process.stdout.write('Version ' + pkg.version + '\\n');\n" +
		"} else {\n" +
		"  process.argv[1] = cli;\n" +
		"  require(cli);\n" +
		"}\n"
	if err := os.Mkdir(filepath.Join(dir, "package"), 0o700); err != nil {
		return nil, fmt.Errorf("browser: driver shim: %w", err)
	}
	if err := os.WriteFile(shimCLI, []byte(src), 0o600); err != nil {
		return nil, fmt.Errorf("browser: driver shim: %w", err)
	}
	return shim, nil
}

// driverCommand is the node and the cli.js playwright-go runs the driver with under opts, as it
// resolves them (PLAYWRIGHT_NODEJS_PATH, PLAYWRIGHT_CLI_PATH, PLAYWRIGHT_DRIVER_PATH, its cache
// folder), so this package reads none of those variables; nothing runs.
func driverCommand(opts *playwright.RunOptions) (node, cli string, err error) {
	d, err := playwright.NewDriver(opts)
	if err != nil {
		return "", "", fmt.Errorf("browser: playwright driver: %w", err)
	}
	args := d.Command("--version").Args // node, cli.js, --version
	if len(args) < 2 {
		return "", "", fmt.Errorf("browser: playwright driver command %q names no cli.js", args)
	}
	return args[0], args[1], nil
}
