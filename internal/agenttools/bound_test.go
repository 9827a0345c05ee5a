package agenttools

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/internal/jsonl"
)

// TestToolCallLogIsBounded is issue 49.10 for tool-calls.jsonl: a tool's answer of megabytes (a page
// snapshot) and a snapshot as large make one line within jsonl.MaxLine, cut with a marker, with the
// password redacted before the cut.
func TestToolCallLogIsBounded(t *testing.T) {
	path := filepath.Join(t.TempDir(), CallsFile)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	d := &driver{log: f, red: evidence.NewRedactor("s3cret-pw")}
	snapshot := strings.Repeat("\x01", 1<<20)
	answer := "typed s3cret-pw " + snapshot // the password inside what the cut keeps: redacted first
	d.record(stepRecord{Page: "http://portale.interno.test/", Snapshot: snapshot, Call: &toolCall{Tool: "browser_snapshot", Answer: answer}})
	if err := d.close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	line := bytes.TrimSuffix(b, []byte("\n"))
	if len(line) > jsonl.MaxLine || !bytes.Contains(line, []byte("…[cut ")) || bytes.Contains(line, []byte("s3cret")) {
		t.Fatalf("tool-calls line of %d bytes (max %d); want it cut with a marker, without the password", len(line), jsonl.MaxLine)
	}
	type rec struct{ Page string }
	rs, err := evidence.ReadLines[rec](bytes.NewReader(b), CallsFile, 1, 1<<20)
	if err != nil || len(rs) != 1 || rs[0].Page != "http://portale.interno.test/" {
		t.Fatalf("read back: %+v, %v", rs, err)
	}
}
