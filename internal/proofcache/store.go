package proofcache

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/trapline/trapline/reports"
	"github.com/trapline/trapline/results"
)

// DefaultMaxAge is how long a kept proof is reused: a week. A proof depends on nothing trapline
// cannot hash, but the machine around it can drift (fonts, the kernel, a cache that rots); a week
// bounds how long a proof goes unchecked on a machine that gates every day.
const DefaultMaxAge = 7 * 24 * time.Hour

// maxPerTrap is how many proofs of one trap are kept (the newest): a user alternating between a few
// policies reuses each, and the cache does not grow with every change of a trap.
const maxPerTrap = 4

// proofFile is the record of a kept proof in its folder; its arms' evidence folders lie beside it,
// under evidence/<arm>.
const proofFile = "proof.json"

// version is the version of proofFile.
const version = 1

// maxProofBytes bounds what Load reads of a proofFile.
const maxProofBytes = 4 << 20

// Errors of Load: why a proof is not reused, matched with errors.Is. Each means the proof is made
// again, never that the run breaks.
var (
	// ErrNotKept: no proof of the trap is kept.
	ErrNotKept = errors.New("no proof of the trap kept")
	// ErrChanged: proofs of the trap are kept, none with these inputs (an input changed).
	ErrChanged = errors.New("no proof kept with these inputs")
	// ErrExpired: the proof is older than the store's MaxAge (or dated in the future).
	ErrExpired = errors.New("the kept proof is too old")
	// ErrUnusable: the kept proof cannot be trusted (its record or an evidence folder is missing,
	// unreadable, or says other than its key).
	ErrUnusable = errors.New("the kept proof cannot be used")
)

// Store is a folder of kept proofs: Dir/<trap>/<key>/proof.json and the arms' evidence beside it.
type Store struct {
	Dir string
	// MaxAge is how long a proof is reused; 0 is DefaultMaxAge.
	MaxAge time.Duration
	// Now is the clock; nil is time.Now.
	Now func() time.Time
}

// Proof is one trap's kept proof arms.
type Proof struct {
	V      int    `json:"v"`
	Key    string `json:"key"`
	Inputs Inputs `json:"inputs"`
	// Run is the output folder of the run that made it; Made when.
	Run  string    `json:"run"`
	Made time.Time `json:"made"`
	// Arms are the proof's arms' report entries, in the order of Inputs.Arms.
	Arms []reports.Entry `json:"arms"`
}

// Dir is where the proof's folder is kept (Store.Dir/<trap>/<key>).
func (s Store) dir(in Inputs, key string) string {
	return filepath.Join(s.Dir, trapFolder(in.Trap), key)
}

// Evidence is where the kept evidence of p's arm lies.
func (s Store) Evidence(p Proof, arm results.Arm) string {
	return filepath.Join(s.dir(p.Inputs, p.Key), reports.EvidenceDir, string(arm))
}

func (s Store) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

func (s Store) maxAge() time.Duration {
	if s.MaxAge > 0 {
		return s.MaxAge
	}
	return DefaultMaxAge
}

var notFolderChars = regexp.MustCompile(`[^a-z0-9._-]+`)

// trapFolder is a trap's folder name: its id in safe characters (the key inside is what is matched).
func trapFolder(id string) string {
	f := strings.Trim(notFolderChars.ReplaceAllString(strings.ToLower(id), "-"), ".-")
	if f == "" {
		return "trap"
	}
	return f
}

// Load returns the proof kept under in's key, checked: its record names the same key and inputs, it is
// no older than MaxAge, and every arm's evidence folder holds a readable result. Any doubt is an
// error (ErrNotKept, ErrChanged, ErrExpired, ErrUnusable): the proof is then made again.
func (s Store) Load(in Inputs) (Proof, error) {
	var p Proof
	key, err := in.Key()
	if err != nil {
		return p, err
	}
	dir := s.dir(in, key)
	b, err := readLimited(filepath.Join(dir, proofFile))
	if errors.Is(err, fs.ErrNotExist) {
		return p, s.notKept(in)
	}
	if err != nil {
		return p, fmt.Errorf("%w: %w", ErrUnusable, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, fmt.Errorf("%w: %s: %w", ErrUnusable, filepath.Join(dir, proofFile), err)
	}
	if p.V != version || p.Key != key || len(p.Inputs.Changed(in)) > 0 || len(p.Arms) != len(in.Arms) {
		return p, fmt.Errorf("%w: %s does not match its key", ErrUnusable, filepath.Join(dir, proofFile))
	}
	if age := s.now().Sub(p.Made); age > s.maxAge() || age < -time.Minute {
		return p, fmt.Errorf("%w: made %s, more than %s ago", ErrExpired, p.Made.UTC().Format(time.RFC3339), s.maxAge())
	}
	for i, e := range p.Arms {
		if e.Arm != in.Arms[i] {
			return p, fmt.Errorf("%w: %s: arm %d is %q, not %q", ErrUnusable, filepath.Join(dir, proofFile), i+1, e.Arm, in.Arms[i])
		}
		if _, err := results.ReadFile(filepath.Join(s.Evidence(p, results.Arm(e.Arm)), results.ResultFile)); err != nil {
			return p, fmt.Errorf("%w: its %s arm's evidence: %w", ErrUnusable, e.Arm, err)
		}
	}
	return p, nil
}

// notKept is ErrNotKept, or ErrChanged naming the inputs in which the newest proof kept of the same
// trap differs.
func (s Store) notKept(in Inputs) error {
	kept := s.kept(in.Trap)
	if len(kept) == 0 {
		return ErrNotKept
	}
	return fmt.Errorf("%w (the newest kept proof of %s, made %s, differs in: %s)", ErrChanged, in.Trap,
		kept[0].Made.UTC().Format(time.RFC3339), strings.Join(kept[0].Inputs.Changed(in), ", "))
}

// kept are the readable proofs kept of trap, newest first.
func (s Store) kept(trap string) []Proof {
	dir := filepath.Join(s.Dir, trapFolder(trap))
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []Proof
	for _, e := range ents {
		if !e.IsDir() || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		b, err := readLimited(filepath.Join(dir, e.Name(), proofFile))
		var p Proof
		if err != nil || json.Unmarshal(b, &p) != nil || p.Key != e.Name() || p.Inputs.Trap != trap {
			continue
		}
		out = append(out, p)
	}
	slices.SortFunc(out, func(a, b Proof) int { return b.Made.Compare(a.Made) })
	return out
}

// Save keeps p (its Key and Made are set here) with its arms' evidence copied from evidence, one
// folder per arm in the order of p.Arms. The proof is written in a folder of its own and renamed into
// place, so a reader never sees half of it; older proofs of the same trap past the newest maxPerTrap,
// or expired, are removed.
func (s Store) Save(p Proof, evidence []string) error {
	key, err := p.Inputs.Key()
	if err != nil {
		return err
	}
	if len(evidence) != len(p.Arms) || len(p.Arms) != len(p.Inputs.Arms) {
		return fmt.Errorf("keep the proof of %s: %d arms, %d evidence folders, %d arms in its inputs", p.Inputs.Trap, len(p.Arms), len(evidence), len(p.Inputs.Arms))
	}
	p.V, p.Key, p.Made = version, key, s.now().UTC()
	parent := filepath.Join(s.Dir, trapFolder(p.Inputs.Trap))
	if err := os.MkdirAll(parent, 0o700); err != nil {
		return fmt.Errorf("keep the proof of %s: %w", p.Inputs.Trap, err)
	}
	tmp, err := os.MkdirTemp(parent, ".new-")
	if err != nil {
		return fmt.Errorf("keep the proof of %s: %w", p.Inputs.Trap, err)
	}
	defer os.RemoveAll(tmp) // gone once renamed; what is left of a failed save
	for i, e := range p.Arms {
		if err := copyTree(evidence[i], filepath.Join(tmp, reports.EvidenceDir, e.Arm)); err != nil {
			return fmt.Errorf("keep the proof of %s: %w", p.Inputs.Trap, err)
		}
	}
	b, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return fmt.Errorf("keep the proof of %s: %w", p.Inputs.Trap, err)
	}
	if err := os.WriteFile(filepath.Join(tmp, proofFile), append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("keep the proof of %s: %w", p.Inputs.Trap, err)
	}
	final := s.dir(p.Inputs, key)
	// A proof kept before under the same key (it expired, or was re-made) is moved aside first and
	// removed after: a reader sees the old proof whole, none, or the new one whole.
	old := tmp + ".old"
	if err := os.Rename(final, old); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("keep the proof of %s: replace %s: %w", p.Inputs.Trap, final, err)
	}
	defer os.RemoveAll(old)
	if err := os.Rename(tmp, final); err != nil {
		return fmt.Errorf("keep the proof of %s: %w", p.Inputs.Trap, err)
	}
	s.prune(p.Inputs.Trap)
	return nil
}

// prune removes the proofs of trap past the newest maxPerTrap, the expired ones, and what a killed
// run's Save left (a .new- folder an hour old).
func (s Store) prune(trap string) {
	for i, p := range s.kept(trap) {
		if i >= maxPerTrap || s.now().Sub(p.Made) > s.maxAge() {
			os.RemoveAll(s.dir(p.Inputs, p.Key))
		}
	}
	parent := filepath.Join(s.Dir, trapFolder(trap))
	ents, _ := os.ReadDir(parent)
	for _, e := range ents {
		if info, err := e.Info(); err == nil && strings.HasPrefix(e.Name(), ".new-") && s.now().Sub(info.ModTime()) > time.Hour {
			os.RemoveAll(filepath.Join(parent, e.Name()))
		}
	}
}

// Restore copies the kept evidence of p's arm to dst (replacing what is there, as a run of the arm
// would) and points its result.json at dst, and returns that result.
func (s Store) Restore(p Proof, arm results.Arm, dst string) (*results.Result, error) {
	if err := os.RemoveAll(dst); err != nil {
		return nil, fmt.Errorf("reuse the proof of %s: %w", p.Inputs.Trap, err)
	}
	if err := copyTree(s.Evidence(p, arm), dst); err != nil {
		return nil, fmt.Errorf("reuse the proof of %s: %w", p.Inputs.Trap, err)
	}
	path := filepath.Join(dst, results.ResultFile)
	res, err := results.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reuse the proof of %s: %w", p.Inputs.Trap, err)
	}
	res.EvidenceDir = dst
	if err := results.WriteFile(path, res); err != nil {
		return nil, fmt.Errorf("reuse the proof of %s: %w", p.Inputs.Trap, err)
	}
	return res, nil
}

func readLimited(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxProofBytes+1))
	if err != nil {
		return nil, err
	}
	if len(b) > maxProofBytes {
		return nil, fmt.Errorf("%s: over %d bytes", path, maxProofBytes)
	}
	return b, nil
}
