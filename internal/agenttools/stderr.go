package agenttools

import (
	"fmt"
	"io"
	"os"
	"time"
)

// stderrSettle bounds the wait for a tool's stderr to be read to its end before an error quotes its
// tail: a server that exits mid-run has written its last words into the pipe, and the error must
// carry them (a crash reported with "nothing on stderr" is a wrong report). A tool that is still
// alive (a hung call) or a browser child that keeps the pipe open costs at most this much.
const stderrSettle = 2 * time.Second

// stderrCopy is a tool's stderr: an OS pipe whose write end the tool inherits and a copier from its
// read end into dst. trapline owns the copier (not os/exec, whose copier only finishes in
// cmd.Wait, which the MCP SDK's transport calls), so it can wait for the end of the output itself.
type stderrCopy struct {
	r, w    *os.File
	drained chan struct{}
}

// newStderrCopy makes the pipe and starts copying it into dst.
func newStderrCopy(dst io.Writer) (*stderrCopy, error) {
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("agenttools: stderr pipe: %w", err)
	}
	s := &stderrCopy{r: r, w: w, drained: make(chan struct{})}
	go func() {
		defer close(s.drained)
		_, _ = io.Copy(dst, r)
	}()
	return s, nil
}

// started closes trapline's copy of the write end once the tool holds its own (after its start, or
// after a start that failed), so the copier sees the end of the output when the tool exits.
func (s *stderrCopy) started() { _ = s.w.Close() }

// settle waits until every writer has closed the pipe and all of it was copied, or d passed.
func (s *stderrCopy) settle(d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-s.drained:
	case <-t.C:
	}
}

// close waits briefly for the rest of the output and stops the copier.
func (s *stderrCopy) close() {
	s.started()
	s.settle(stderrSettle)
	_ = s.r.Close()
	<-s.drained
}
