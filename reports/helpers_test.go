package reports

import "testing"

// mustWrite writes data to path for a test's input (creating its folder, as writeFile does), fails
// the test when it cannot, and returns path.
func mustWrite(t *testing.T, path string, data []byte) string {
	t.Helper()
	if err := writeFile(path, data); err != nil {
		t.Fatal(err)
	}
	return path
}
