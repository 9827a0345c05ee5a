package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// checkExtensions checks --extension: only an --agent external run has a black-box browser the agent
// shares with trapline, and each folder must be an unpacked extension.
func checkExtensions(cfg runConfig) error {
	if len(cfg.extensions) == 0 {
		return nil
	}
	if cfg.agent != "external" {
		return fmt.Errorf("--extension is for --agent external (the extension lives in trapline's black-box browser), not --agent %s", cfg.agent)
	}
	for _, d := range cfg.extensions {
		if _, err := os.Stat(filepath.Join(d, "manifest.json")); err != nil {
			return fmt.Errorf("--extension %s: not an unpacked extension (no manifest.json)", d)
		}
	}
	return nil
}
