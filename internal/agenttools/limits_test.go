package agenttools

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestMCPRepliesOverTheLimitAreRefused: issue 28.5. The SDK reads an HTTP JSON reply with io.ReadAll;
// limitBodies stops it past the limit with an error naming it, and lets a reply at the limit through.
// Over stdio the SDK's own frame limit applies, which MaxReplyBytes equals.
func TestMCPRepliesOverTheLimitAreRefused(t *testing.T) {
	if MaxReplyBytes != mcp.DefaultMaxLineLength {
		t.Fatalf("MaxReplyBytes %d is not the SDK's stdio frame limit %d", MaxReplyBytes, mcp.DefaultMaxLineLength)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		_, _ = io.WriteString(w, strings.Repeat("x", n))
	}))
	defer srv.Close()
	c := &http.Client{Transport: limitBodies{http.DefaultTransport, 1000}}
	for _, tc := range []struct {
		n       int
		refused bool
	}{{999, false}, {1000, false}, {1001, true}, {1 << 20, true}} {
		resp, err := c.Get(srv.URL + "?n=" + strconv.Itoa(tc.n))
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		switch {
		case tc.refused && (err == nil || !strings.Contains(err.Error(), "over the limit of 1000 bytes (MaxReplyBytes)")):
			t.Errorf("%d bytes: read %d, err %v; want refused", tc.n, len(b), err)
		case tc.refused && len(b) > 1001:
			t.Errorf("%d bytes: %d read past the limit", tc.n, len(b))
		case !tc.refused && (err != nil || len(b) != tc.n):
			t.Errorf("%d bytes: read %d, err %v", tc.n, len(b), err)
		}
	}
}
