package harness

import (
	"fmt"
	"os"
	"sync"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/traps"
)

// storageStateFile returns the storage-state file of an arm's session, "" for none, and adds its
// values to the setup's secrets (they are redacted from every artifact). A StorageStateJSON is
// written to a private temporary file outside the evidence folder; clean removes it (call it as soon
// as the session exists; calling it again does nothing).
func storageStateFile(setup *traps.Setup) (path string, clean func(), err error) {
	clean = func() {}
	path = setup.StorageState
	if setup.StorageStateJSON != nil {
		f, err := os.CreateTemp("", "trapline-storage-state-*.json")
		if err != nil {
			return "", clean, fmt.Errorf("harness: storage state: %w", err)
		}
		var once sync.Once
		clean = func() { once.Do(func() { _ = os.Remove(f.Name()) }) }
		_, werr := f.Write(setup.StorageStateJSON)
		if err := f.Close(); werr == nil {
			werr = err
		}
		if werr != nil {
			clean()
			return "", func() {}, fmt.Errorf("harness: storage state: %w", werr)
		}
		path = f.Name()
	}
	if path == "" {
		return "", clean, nil
	}
	secrets, err := browser.StorageStateSecrets(path)
	if err != nil {
		clean()
		return "", func() {}, fmt.Errorf("harness: %w", err)
	}
	setup.Secrets = append(setup.Secrets, secrets...)
	return path, clean, nil
}
