package llm

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// recording is a testdata file: the turns a fake OpenAI-compatible server replays, in order.
type recording struct {
	// Turns are answered one per request.
	Turns []recordedTurn `json:"turns"`
}

// recordedTurn is one request expectation and its answer.
type recordedTurn struct {
	// Expect lists strings the request's last user message must contain; Absent, strings no part of
	// the request may contain.
	Expect []string `json:"expect"`
	Absent []string `json:"absent"`
	// Status is the HTTP status; 0 means 200.
	Status int `json:"status"`
	// Content is the assistant's message content; Refusal its refusal; FinishReason defaults to "stop".
	Content      *string         `json:"content"`
	Refusal      string          `json:"refusal"`
	FinishReason string          `json:"finish_reason"`
	ToolCalls    json.RawMessage `json:"tool_calls"`
	Usage        json.RawMessage `json:"usage"`
	// Raw, when set, is sent as the body verbatim instead of a built completion.
	Raw json.RawMessage `json:"raw"`
}

// fakeServer is an OpenAI-compatible server on 127.0.0.1 that replays a recording and keeps every
// request body.
type fakeServer struct {
	t    *testing.T
	srv  *httptest.Server
	key  string
	rec  recording
	mu   sync.Mutex
	reqs [][]byte
	auth []string
}

func loadRecording(t *testing.T, name string) recording {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var r recording
	dec := json.NewDecoder(strings.NewReader(string(b)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		t.Fatalf("testdata/%s: %v", name, err)
	}
	return r
}

func newFakeServer(t *testing.T, rec recording, key string) *fakeServer {
	f := &fakeServer{t: t, rec: rec, key: key}
	f.srv = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.srv.Close)
	return f
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		f.t.Errorf("fake server: read body: %v", err)
		return
	}
	f.mu.Lock()
	i := len(f.reqs)
	f.reqs = append(f.reqs, body)
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		f.t.Errorf("fake server: %s %s, want POST /v1/chat/completions", r.Method, r.URL.Path)
	}
	if f.key != "" && r.Header.Get("Authorization") != "Bearer "+f.key {
		http.Error(w, `{"error":{"message":"bad key"}}`, http.StatusUnauthorized)
		return
	}
	if i >= len(f.rec.Turns) {
		f.t.Errorf("fake server: request %d, but the recording has %d turns", i+1, len(f.rec.Turns))
		http.Error(w, "no more turns", http.StatusGone)
		return
	}
	turn := f.rec.Turns[i]
	var req chatRequest
	if err := json.Unmarshal(body, &req); err != nil || len(req.Messages) == 0 {
		f.t.Errorf("fake server: request %d is not a chat request: %v", i+1, err)
		return
	}
	last := req.Messages[len(req.Messages)-1].Content
	for _, s := range turn.Expect {
		if !strings.Contains(last, s) {
			f.t.Errorf("fake server: request %d: the last message lacks %q:\n%s", i+1, s, last)
		}
	}
	for _, s := range turn.Absent {
		if strings.Contains(string(body), s) {
			f.t.Errorf("fake server: request %d contains %q", i+1, s)
		}
	}
	if turn.Status != 0 && turn.Status != http.StatusOK {
		w.WriteHeader(turn.Status)
		_, _ = w.Write(turn.Raw)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	if turn.Raw != nil {
		_, _ = w.Write(turn.Raw)
		return
	}
	_ = json.NewEncoder(w).Encode(completion(turn))
}

// completion builds a chat completion body from a turn.
func completion(t recordedTurn) map[string]any {
	msg := map[string]any{"role": "assistant", "content": nil}
	if t.Content != nil {
		msg["content"] = *t.Content
	}
	if t.Refusal != "" {
		msg["refusal"] = t.Refusal
	}
	if t.ToolCalls != nil {
		msg["tool_calls"] = t.ToolCalls
	}
	finish := t.FinishReason
	if finish == "" {
		finish = "stop"
	}
	out := map[string]any{"id": "chatcmpl-test", "object": "chat.completion", "model": "fake",
		"choices": []any{map[string]any{"index": 0, "message": msg, "finish_reason": finish}}}
	if t.Usage != nil {
		out["usage"] = t.Usage
	}
	return out
}

// url is the base URL to configure.
func (f *fakeServer) url() string { return f.srv.URL + "/v1" }

// requests returns the decoded request bodies so far.
func (f *fakeServer) requests() []chatRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]chatRequest, len(f.reqs))
	for i, b := range f.reqs {
		if err := json.Unmarshal(b, &out[i]); err != nil {
			f.t.Fatalf("request %d: %v", i+1, err)
		}
	}
	return out
}

// body returns request i's raw body.
func (f *fakeServer) body(i int) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return string(f.reqs[i])
}

// count returns the number of requests received.
func (f *fakeServer) count() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return len(f.reqs)
}

// wrapRecord serves answers computed by fn while recording requests like serve does.
func wrapRecord(f *fakeServer, fn func(chatRequest) map[string]any) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			f.t.Errorf("fake server: read body: %v", err)
			return
		}
		f.mu.Lock()
		f.reqs = append(f.reqs, body)
		f.auth = append(f.auth, r.Header.Get("Authorization"))
		f.mu.Unlock()
		var req chatRequest
		if err := json.Unmarshal(body, &req); err != nil {
			f.t.Errorf("fake server: %v", err)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(fn(req))
	})
}

func itoa(n int) string { return strconv.Itoa(n) }
