package reports

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
)

// writeJSONFile writes v as indented JSON to path, creating its folder.
func writeJSONFile(path string, v any) error {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("reports: encode %s: %w", path, err)
	}
	return writeFile(path, append(b, '\n'))
}

// writeFile writes b to path, creating its folder: every report file trapline writes (the JSON
// summaries, report.html, mutation.html) goes through it.
func writeFile(path string, b []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("reports: create folder for %s: %w", path, err)
	}
	if err := os.WriteFile(path, b, 0o644); err != nil {
		return fmt.Errorf("reports: write %s: %w", path, err)
	}
	return nil
}

// readJSONFile decodes the JSON file at path into v; the caller checks the schema version.
func readJSONFile(path string, v any) error {
	b, err := readLimited(path, "JSON report", MaxSummaryBytes)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(b, v); err != nil {
		return fmt.Errorf("reports: %s: %w", path, err)
	}
	return nil
}
