package modelserve

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/internal/jsonl"
)

// TestCallLogIsBounded is issue 49.10 for model-calls.jsonl: a request carrying a page's megabytes
// (64 KiB of it kept) and a model answer of megabytes (a why quoting the page) make one line within
// jsonl.MaxLine, cut with a marker, the secret redacted before the cut, and the line reads back.
func TestCallLogIsBounded(t *testing.T) {
	var log bytes.Buffer
	s := &Server{Log: &log, Redactor: evidence.NewRedactor("s3cret-pw")}
	page := "s3cret-pw " + strings.Repeat("\x01", 1<<20) // the password inside what the cut keeps
	req, _ := json.Marshal(map[string]any{"messages": []any{map[string]any{"role": "user", "content": page}}})
	s.log(record{Path: "/v1/chat/completions", Status: 200, Request: req, Why: page, Answer: map[string]any{"text": page}})
	line := bytes.TrimSuffix(log.Bytes(), []byte("\n"))
	if len(line) > jsonl.MaxLine || !bytes.Contains(line, []byte("…[cut ")) || bytes.Contains(line, []byte("s3cret")) {
		t.Fatalf("call log line of %d bytes (max %d), marker %v, secret %v", len(line), jsonl.MaxLine,
			bytes.Contains(line, []byte("…[cut ")), bytes.Contains(line, []byte("s3cret")))
	}
	type rec struct{ Path string }
	rs, err := evidence.ReadLines[rec](bytes.NewReader(log.Bytes()), CallsFile, 1, 1<<20)
	if err != nil || len(rs) != 1 || rs[0].Path != "/v1/chat/completions" {
		t.Fatalf("read back: %+v, %v", rs, err)
	}
}
