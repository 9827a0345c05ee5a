package browser

import (
	"os"
	"sync"
	"testing"
)

// shared is the package's one default browser (Launch in this process's environment), launched by the first test that
// asks for it and closed when every test has run. A test that needs only fresh contexts of a default
// browser (sessions, a bare context) takes it instead of launching its own, as the harness shares one
// browser per process between arms: a launch costs more than most of these tests' own work. A test
// that needs other Options, or that closes or crashes its browser, still launches its own.
var shared struct {
	once sync.Once
	b    *Browser
	err  error
}

// sharedBrowser is the package's shared default browser; a failed launch fails every test asking.
func sharedBrowser(t *testing.T) *Browser {
	t.Helper()
	shared.once.Do(func() { shared.b, shared.err = Launch(Options{Environ: os.Environ()}) })
	if shared.err != nil {
		t.Fatalf("launch chromium: %v", shared.err)
	}
	return shared.b
}

func TestMain(m *testing.M) {
	code := m.Run()
	if shared.b != nil {
		if err := shared.b.Close(); err != nil && code == 0 {
			os.Stderr.WriteString("close the shared browser: " + err.Error() + "\n")
			code = 1
		}
	}
	os.Exit(code)
}
