package llm

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptrace"
	"strings"
	"sync/atomic"
	"time"
)

// MaxResponseBytes bounds what is read of a server's answer: a longer one is a TransportError
// naming the limit, and at most this much is ever held.
const MaxResponseBytes = 8 << 20

type message struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string    `json:"model"`
	Messages       []message `json:"messages"`
	Temperature    float64   `json:"temperature"`
	MaxTokens      int       `json:"max_tokens"`
	ResponseFormat any       `json:"response_format,omitempty"`
	Stream         bool      `json:"stream"`
}

type chatResponse struct {
	Model   string `json:"model"`
	Choices []struct {
		Message struct {
			Content   *string           `json:"content"`
			Refusal   *string           `json:"refusal"`
			ToolCalls []json.RawMessage `json:"tool_calls"`
		} `json:"message"`
		FinishReason string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// TransportError is a request that failed on the way: the connection, a timeout, an HTTP status other
// than 200, an unreadable body. Sent reports whether the request may have reached the server; only
// requests that provably did not (the connection was never opened) are retried. Its message has the
// API key redacted, and it keeps no reference to the underlying error except a context error.
type TransportError struct {
	Msg    string
	Sent   bool
	Status int   // the HTTP status, 0 when there was no answer
	ctxErr error // context.DeadlineExceeded or Canceled when the caller's context ended
}

func (e *TransportError) Error() string { return e.Msg }

// Unwrap exposes the context error, so errors.Is(err, context.DeadlineExceeded) works.
func (e *TransportError) Unwrap() error { return e.ctxErr }

// client posts chat requests.
type client struct {
	http     *http.Client
	endpoint string
	key      string
	retries  int
	backoff  time.Duration
}

func newHTTPClient() *http.Client {
	return &http.Client{Transport: &http.Transport{
		Proxy:                 http.ProxyFromEnvironment,
		DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		TLSHandshakeTimeout:   10 * time.Second,
		MaxIdleConns:          4,
		IdleConnTimeout:       90 * time.Second,
		ResponseHeaderTimeout: 0, // the caller's context bounds the decision
	}}
}

// redact removes the key from s.
func (c *client) redact(s string) string {
	if c.key == "" {
		return s
	}
	return strings.ReplaceAll(s, c.key, "[redacted]")
}

// post sends body and decodes the answer. It retries only when the connection could not be opened,
// so the server never saw the request: a request that may have been received (a timeout or a reset
// after the connection was up) is never sent twice, since it may have been billed or acted on.
func (c *client) post(ctx context.Context, body []byte) (*chatResponse, []byte, error) {
	wait := c.backoff
	for attempt := 0; ; attempt++ {
		resp, raw, err := c.once(ctx, body)
		var te *TransportError
		if err == nil || !errors.As(err, &te) || te.Sent || te.ctxErr != nil || attempt >= c.retries {
			return resp, raw, err
		}
		select {
		case <-ctx.Done():
			return nil, nil, &TransportError{Msg: te.Msg + "; no retry: " + ctx.Err().Error(), ctxErr: ctx.Err()}
		case <-time.After(wait):
		}
		wait *= 2
	}
}

func (c *client) once(ctx context.Context, body []byte) (*chatResponse, []byte, error) {
	var connected atomic.Bool
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { connected.Store(true) }}
	req, err := http.NewRequestWithContext(httptrace.WithClientTrace(ctx, trace), http.MethodPost, c.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, nil, &TransportError{Msg: "llm planner: build request: " + c.redact(err.Error())}
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.key != "" {
		req.Header.Set("Authorization", "Bearer "+c.key)
	}
	// fail builds the error; sent says whether the request may have reached the server.
	fail := func(sent bool, status int, format string, args ...any) (*chatResponse, []byte, error) {
		te := &TransportError{Msg: c.redact(fmt.Sprintf("llm planner: POST %s: ", c.endpoint) + fmt.Sprintf(format, args...)),
			Sent: sent, Status: status}
		if ctx.Err() != nil {
			te.ctxErr = ctx.Err()
		}
		return nil, nil, te
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return fail(connected.Load() || !dialFailure(err), 0, "%v", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, MaxResponseBytes+1))
	if err != nil {
		return fail(true, resp.StatusCode, "read the answer: %v", err)
	}
	if len(raw) > MaxResponseBytes {
		return fail(true, resp.StatusCode, "the answer is over the limit of %d bytes (MaxResponseBytes)", MaxResponseBytes)
	}
	if resp.StatusCode != http.StatusOK {
		return fail(true, resp.StatusCode, "server answered %s: %s", resp.Status, excerpt(string(raw), 300))
	}
	var out chatResponse
	if err := json.Unmarshal(raw, &out); err != nil {
		return fail(true, resp.StatusCode, "the answer is not a chat completion: %v: %s", err, excerpt(string(raw), 200))
	}
	if out.Error != nil {
		return fail(true, resp.StatusCode, "server error: %s", excerpt(out.Error.Message, 300))
	}
	return &out, raw, nil
}

// dialFailure reports whether err is a failure to open the connection, before any byte of the
// request was written.
func dialFailure(err error) bool {
	var op *net.OpError
	return err != nil && errors.As(err, &op) && op.Op == "dial"
}

// excerpt shortens s to n runes.
func excerpt(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n]) + fmt.Sprintf("…(+%d runes)", len(r)-n)
}
