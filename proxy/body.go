package proxy

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"

	"github.com/trapline/trapline/agentkit/policy"
)

// BodyLimiter is implemented by Rules that judge request bodies (*policy.Policy does): the proxy
// reads at most BodyLimit bytes of a body before asking DecideRequest. Rules without it get
// policy.DefaultMaxBodyBytes+1.
type BodyLimiter interface {
	BodyLimit() int
}

var _ BodyLimiter = (*policy.Policy)(nil)

// readBody reads up to the rules' body limit of r's body into the request to judge and puts the
// bytes back in front of the rest, so an allowed request is forwarded whole. truncated says the
// body went on past the limit. An error reading the body is returned (the request is denied), a
// body that does not arrive within Config.BodyTimeout included.
func (p *Proxy) readBody(r *http.Request) (body []byte, truncated bool, err error) {
	if r.Body == nil || r.Body == http.NoBody {
		return nil, false, nil
	}
	limit := policy.DefaultMaxBodyBytes + 1
	if bl, ok := p.opts.rules.(BodyLimiter); ok {
		limit = bl.BodyLimit()
	}
	buf, err := io.ReadAll(io.LimitReader(r.Body, int64(limit)))
	if errors.Is(err, os.ErrDeadlineExceeded) {
		// The deadline stays: net/http's discard of the rest fails at once and the connection closes.
		return nil, false, fmt.Errorf("the request body did not arrive within %s (a slow or stalled body): %w", p.opts.bodyWait, err)
	}
	if err != nil {
		return nil, false, fmt.Errorf("read request body: %w", err)
	}
	clearBodyDeadline(r)
	r.Body = struct {
		io.Reader
		io.Closer
	}{io.MultiReader(bytes.NewReader(buf), r.Body), r.Body}
	return buf, len(buf) >= limit, nil
}
