package browser

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// extensionDirs checks each unpacked extension folder (absolute, with a manifest.json; no comma, which
// Chromium's flag uses as the separator) and joins them for --load-extension.
func extensionDirs(dirs []string) (string, error) {
	out := make([]string, 0, len(dirs))
	for _, d := range dirs {
		abs, err := filepath.Abs(d)
		if err != nil {
			return "", fmt.Errorf("browser: extension %s: %w", d, err)
		}
		if strings.Contains(abs, ",") {
			return "", fmt.Errorf("browser: extension %s: the path has a comma, which --load-extension cannot carry", d)
		}
		if _, err := os.Stat(filepath.Join(abs, "manifest.json")); err != nil {
			return "", fmt.Errorf("browser: extension %s: not an unpacked extension (no manifest.json): %w", d, err)
		}
		out = append(out, abs)
	}
	return strings.Join(out, ","), nil
}
