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
	got, dropped := boundStorageState(st, pol, false)
	if len(got.Cookies) != 1 || got.Cookies[0].Name != "trapline_utente" || len(got.Origins) != 0 {
		t.Errorf("kept %+v, want only the portal's account cookie and no local storage", got)
	}
	if len(dropped) != 2 || !strings.Contains(dropped[0], `"sso"`) || strings.Contains(strings.Join(dropped, " "), "sso-session-7f3a") {
		t.Errorf("dropped %q: want the sso cookie and the local storage, named, never their values", dropped)
	}
	if kept, _ := boundStorageState(st, pol, true); len(kept.Origins) != 1 {
		t.Errorf("KeepStorageOrigins dropped the origins")
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
