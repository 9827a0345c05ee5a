package browser

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/policy"
)

const stateFile = `{"cookies":[
 {"name":"trapline_utente","value":"operatore.test","domain":"portale.interno.test","path":"/"},
 {"name":"sso","value":"sso-session-7f3a","domain":".sso.example.test","path":"/"}],
 "origins":[{"origin":"http://portale.interno.test","localStorage":[{"name":"bozza","value":"testo-della-bozza"}]}]}`

func TestBoundStorageState(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(path, []byte(stateFile), 0o600); err != nil {
		t.Fatal(err)
	}
	pol, err := policy.Load("../../policies/reference.yml")
	if err != nil {
		t.Fatal(err)
	}
	st, err := ReadStorageState(path)
	if err != nil {
		t.Fatal(err)
	}
	got, dropped := boundStorageState(st, pol, false, nil)
	if len(got.Cookies) != 1 || got.Cookies[0].Name != "trapline_utente" || len(got.Origins) != 0 {
		t.Errorf("kept %+v, want only the portal's account cookie and no local storage", got)
	}
	if len(dropped) != 2 || !strings.Contains(dropped[0], `"sso"`) || strings.Contains(strings.Join(dropped, " "), "sso-session-7f3a") {
		t.Errorf("dropped %q: want the sso cookie and the local storage, named, never their values", dropped)
	}
	if kept, _ := boundStorageState(st, pol, true, nil); len(kept.Origins) != 1 {
		t.Errorf("KeepStorageOrigins dropped the origins")
	}
	// --keep-app-storage: the app's own origin keeps its local storage, by host name whatever the
	// port; any other origin's is still stripped.
	st.Origins = append(st.Origins, st.Origins[0])
	st.Origins[0].Origin = "http://portale.interno.test:8080"
	st.Origins[1].Origin = "https://tracker.example.test"
	if kept, dropped := boundStorageState(st, pol, false, []string{"portale.interno.test"}); len(kept.Origins) != 1 ||
		kept.Origins[0].Origin != "http://portale.interno.test:8080" || !strings.Contains(strings.Join(dropped, " "), "tracker.example.test") {
		t.Errorf("keep hosts: kept %+v, dropped %q: want the app's origin only", kept.Origins, dropped)
	}
	secrets, err := StorageStateSecrets(path)
	if err != nil || !slices.Contains(secrets, "operatore.test") || !slices.Contains(secrets, "testo-della-bozza") {
		t.Errorf("secrets %q, %v: want every value of the file", secrets, err)
	}
	for _, bad := range []string{`{"cookies":[{"value":"x"}]}`, `not json`} {
		p := filepath.Join(t.TempDir(), "bad.json")
		_ = os.WriteFile(p, []byte(bad), 0o600)
		if _, err := ReadStorageState(p); err == nil || !strings.Contains(err.Error(), p) {
			t.Errorf("ReadStorageState(%s) = %v, want an error naming the file", bad, err)
		}
	}
}

// TestStorageStateOverItsLimitIsRefused: issue 28.5. A storage-state file over MaxStorageStateBytes is
// refused from its size, naming file, size and limit, and nothing of its content.
func TestStorageStateOverItsLimitIsRefused(t *testing.T) {
	p := filepath.Join(t.TempDir(), "state.json")
	big := stateFile[:len(stateFile)-1] + `,"pad":"` + strings.Repeat("x", MaxStorageStateBytes) + `"}`
	if err := os.WriteFile(p, []byte(big), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := ReadStorageState(p)
	if err == nil || !strings.Contains(err.Error(), p+": ") || !strings.Contains(err.Error(), "over the limit of 4194304 bytes (4 MiB)") || strings.Contains(err.Error(), "sso-session") {
		t.Fatalf("err = %v", err)
	}
}

// TestSameDocument: issue 53.1. A hash-only change is what a browser does without loading the page;
// Goto loads it again then, so a hash-route start URL after a login still starts from a page load.
func TestSameDocument(t *testing.T) {
	for _, c := range []struct {
		cur, next string
		want      bool
	}{
		{"http://app.test/#/login", "http://app.test/#/records", true},
		{"http://app.test/", "http://app.test/#/records", true},
		{"http://app.test/#/records", "http://app.test/#/records", true},
		{"http://app.test/a", "http://app.test/b#/records", false},
		{"http://app.test/#/records", "http://app.test/", false},
		{"about:blank", "http://app.test/#/x", false},
		{"http://app.test/?q=1", "http://app.test/#/x", false},
	} {
		if got := sameDocument(c.cur, c.next); got != c.want {
			t.Errorf("sameDocument(%q, %q) = %v, want %v", c.cur, c.next, got, c.want)
		}
	}
}

// TestCDPCookies: a storage state's cookies as Storage.setCookies takes them for a black-box run's
// context (issue 53.1): a session cookie (expires -1) carries no expiry, the rest as given.
func TestCDPCookies(t *testing.T) {
	st, err := ReadStorageState(writeState(t, `{"cookies":[{"name":"s","value":"v1","domain":"app.test","path":"/","expires":-1,"httpOnly":true,"sameSite":"Lax"},
 {"name":"t","value":"v2","url":"http://app.test/","expires":1900000000}]}`))
	if err != nil {
		t.Fatal(err)
	}
	got := cdpCookies(st.Cookies)
	if len(got) != 2 || got[0]["domain"] != "app.test" || got[0]["sameSite"] != "Lax" || got[0]["httpOnly"] != true || got[0]["expires"] != nil ||
		got[1]["url"] != "http://app.test/" || got[1]["expires"] != float64(1900000000) {
		t.Fatalf("cdpCookies = %v", got)
	}
}

func writeState(t *testing.T, body string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "state.json")
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}
