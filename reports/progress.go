package reports

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
)

// IsTerminal reports whether f is a character device (a terminal), without golang.org/x/term.
func IsTerminal(f *os.File) bool {
	if f == nil {
		return false
	}
	fi, err := f.Stat()
	return err == nil && fi.Mode()&os.ModeCharDevice != 0
}

// Progress prints a live line per trap arm while a run goes on: "[i/N] trap arm running…", then the
// same line, overwritten, with the verdict. It is quiet (prints nothing) unless it writes to a
// terminal, so logs and CI output stay clean. Safe for concurrent use.
type Progress struct {
	mu    sync.Mutex
	w     io.Writer
	total int
	n     int
}

// NewProgress returns a Progress over total arms writing to f, or a quiet one when f is not a
// terminal.
func NewProgress(f *os.File, total int) *Progress {
	if !IsTerminal(f) {
		return &Progress{total: total}
	}
	return &Progress{w: f, total: total}
}

// NewProgressWriter returns a Progress writing to w whatever w is (tests, or a caller that has decided).
func NewProgressWriter(w io.Writer, total int) *Progress { return &Progress{w: w, total: total} }

// Start announces the next arm and returns its position (1-based).
func (p *Progress) Start(trap, arm string) int {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.n++
	if p.w != nil {
		// A newline first: the line may hold the test runner's own progress marks, which stay.
		fmt.Fprintf(p.w, "\n%s %s %s running…", p.pos(p.n), trap, arm)
	}
	return p.n
}

// Done overwrites the line of the arm at position i with its verdict.
func (p *Progress) Done(i int, e Entry) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.w == nil {
		return
	}
	fmt.Fprintf(p.w, "\r\033[K%s %s\n", p.pos(i), ProgressLine(e))
}

// ProgressLine is a finished arm in one line: trap, arm (ArmLabel: with the agent under test's name,
// if any), verdict, seconds, why when it did not pass, and the run that made a reused proof
// ("decoy-delete guarded PASS (2.5s)"). trapline run's progress lines are these too.
func ProgressLine(e Entry) string {
	line := fmt.Sprintf("%s %s %s (%.1fs)", e.Trap, ArmLabel(e), strings.ToUpper(e.Status), e.Seconds)
	if e.Status != StatusPass {
		line += ": " + e.Why
	}
	if r := reusedLabel(e); r != "" {
		line += ": " + r
	}
	return line
}

func (p *Progress) pos(i int) string {
	if p.total <= 0 || i > p.total {
		return fmt.Sprintf("[%d]", i)
	}
	return fmt.Sprintf("[%d/%d]", i, p.total)
}
