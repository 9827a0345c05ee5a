package observe

import "testing"

// mustParse parses raw as snapshot id of the page at pageURL; an error fails the test.
func mustParse(t testing.TB, id, pageURL, raw string) *Observation {
	t.Helper()
	o, err := Parse(id, pageURL, raw)
	if err != nil {
		t.Fatal(err)
	}
	return o
}
