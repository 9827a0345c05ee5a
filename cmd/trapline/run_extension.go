package main

import (
	"fmt"
	"os"
	"path/filepath"
)

// checkExtensions checks trapline run external's --extension (only that mode has a black-box
// browser the agent shares with trapline): each folder must be an unpacked extension.
func checkExtensions(cfg runConfig) error {
	if len(cfg.extensions) == 0 {
		return nil
	}
	for _, d := range cfg.extensions {
		if _, err := os.Stat(filepath.Join(d, "manifest.json")); err != nil {
			return fmt.Errorf("--extension %s: not an unpacked extension (no manifest.json)", d)
		}
	}
	return nil
}
