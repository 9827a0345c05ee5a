package evidence

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/trapline/trapline/internal/jsonl"
)

// File names inside a run folder.
const (
	ActionsFile    = "actions.jsonl"
	ViolationsFile = "violations.jsonl"
	ConsoleFile    = "console.jsonl"
	TraceFile      = "trace.zip"
)

// Recorder appends records to a run folder. It is safe for concurrent use: browser events arrive on
// other goroutines than the agent loop.
type Recorder struct {
	dir    string
	redact *Redactor
	now    func() time.Time

	mu         sync.Mutex
	files      map[string]*os.File
	bufs       map[string]*bufio.Writer
	actions    int
	violations []Violation
	shots      int // the highest number ShotName handed out
	err        error
}

// Open creates dir (if needed) and the record files in it, readable by their owner only (DirMode,
// FileMode: they hold page content).
func Open(dir string, r *Redactor) (*Recorder, error) {
	if err := os.MkdirAll(dir, DirMode); err != nil {
		return nil, fmt.Errorf("evidence: create %s: %w", dir, err)
	}
	if err := os.Chmod(dir, DirMode); err != nil { // it may exist already (the world's proxy log)
		return nil, fmt.Errorf("evidence: %w", err)
	}
	rec := &Recorder{dir: dir, redact: r, now: time.Now, files: map[string]*os.File{}, bufs: map[string]*bufio.Writer{}}
	for _, name := range []string{ActionsFile, ViolationsFile, ConsoleFile} {
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_RDWR|os.O_CREATE|os.O_TRUNC, FileMode)
		if err != nil {
			_ = rec.Close()
			return nil, fmt.Errorf("evidence: create %s: %w", name, err)
		}
		rec.files[name] = f
		rec.bufs[name] = bufio.NewWriter(f)
	}
	return rec, nil
}

// Dir is the run folder.
func (r *Recorder) Dir() string { return r.dir }

// Redactor is the redactor applied to every record.
func (r *Recorder) Redactor() *Redactor { return r.redact }

// Path returns the path of a file in the run folder.
func (r *Recorder) Path(name string) string { return filepath.Join(r.dir, name) }

// Action appends an action record, filling V, Seq and Time when unset, and returns it.
func (r *Recorder) Action(a ActionRecord) ActionRecord {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.actions++
	a.V, a.Seq = Version, r.actions
	if a.Time.IsZero() {
		a.Time = r.now()
	}
	r.write(ActionsFile, a)
	return a
}

// Violation appends a violation record and keeps it in memory for Violations. It sets the record's
// Source to its rule's layer (policy.Rule.Layer): the registry, not the caller, says where a rule is
// applied.
func (r *Recorder) Violation(v Violation) Violation {
	r.mu.Lock()
	defer r.mu.Unlock()
	v.V, v.Seq = Version, len(r.violations)+1
	if l := v.Rule.Layer(); l != "" {
		v.Source = l
	}
	if v.Time.IsZero() {
		v.Time = r.now()
	}
	v.Reason = r.redact.String(v.Reason)
	r.violations = append(r.violations, v)
	r.write(ViolationsFile, v)
	return v
}

// ShotName is a new file name for a violation's screenshot, violation-NNN.png: NNN is the number of
// the violation about to be recorded, or one past the last name handed out when that one is taken
// (the agent loop and the browser's event handlers record refusals side by side: no two shots share a
// name).
func (r *Recorder) ShotName() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.shots = max(r.shots+1, len(r.violations)+1)
	return fmt.Sprintf("violation-%03d.png", r.shots)
}

// Console appends a console message.
func (r *Recorder) Console(c ConsoleRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	c.V = Version
	if c.Time.IsZero() {
		c.Time = r.now()
	}
	r.write(ConsoleFile, c)
}

// Violations returns a copy of the violations recorded so far.
func (r *Recorder) Violations() []Violation {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]Violation(nil), r.violations...)
}

// write encodes v, redacts the whole line, bounds it (jsonl.Bound: a page can fill a record) and
// appends it. Callers hold r.mu.
func (r *Recorder) write(name string, v any) {
	line, err := json.Marshal(v)
	if err != nil {
		r.err = errors.Join(r.err, fmt.Errorf("evidence: encode %s record: %w", name, err))
		return
	}
	line = jsonl.Bound(r.redact.Bytes(line)) // redacted whole first: a cut never leaves half a secret
	w := r.bufs[name]
	if w == nil {
		r.err = errors.Join(r.err, fmt.Errorf("evidence: %s is closed", name))
		return
	}
	if _, err := w.Write(append(line, '\n')); err != nil {
		r.err = errors.Join(r.err, fmt.Errorf("evidence: write %s: %w", name, err))
	}
}

// Flush writes buffered records to disk.
func (r *Recorder) Flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	var errs []error
	for name, w := range r.bufs {
		if err := w.Flush(); err != nil {
			errs = append(errs, fmt.Errorf("evidence: flush %s: %w", name, err))
		}
	}
	return errors.Join(append(errs, r.err)...)
}

// Close flushes and closes every file. It returns the first error any write met.
func (r *Recorder) Close() error {
	err := r.Flush()
	r.mu.Lock()
	defer r.mu.Unlock()
	for name, f := range r.files {
		if cerr := f.Close(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("evidence: close %s: %w", name, cerr))
		}
		delete(r.bufs, name)
		delete(r.files, name)
	}
	return err
}

// ReadViolations reads a violations.jsonl file.
func ReadViolations(path string) ([]Violation, error) {
	return readJSONL[Violation](path)
}

// ReadActions reads an actions.jsonl file.
func ReadActions(path string) ([]ActionRecord, error) {
	return readJSONL[ActionRecord](path)
}

func readJSONL[T any](path string) ([]T, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("evidence: open %s: %w", path, err)
	}
	defer f.Close()
	return ReadLines[T](f, "evidence: "+path, Version, 16<<20)
}
