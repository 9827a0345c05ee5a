package browser

import (
	"os"
	"testing"
)

// requireChromiumEnv, set by .ci/run (which installs Chromium), turns a missing Chromium from a skip
// into a failure: in CI a skip there would be a pass in disguise.
const requireChromiumEnv = "TRAPLINE_REQUIRE_CHROMIUM"

// needChromium skips t when Debian's Chromium is not installed (a developer's machine without make
// setup), and fails it instead when requireChromiumEnv is set.
func needChromium(t *testing.T) {
	t.Helper()
	if _, err := os.Stat(DefaultChromium); err != nil {
		if os.Getenv(requireChromiumEnv) != "" {
			t.Fatalf("%s is set but there is no Chromium at %s: %v", requireChromiumEnv, DefaultChromium, err)
		}
		t.Skip("needs Chromium at " + DefaultChromium + " (make setup)")
	}
}
