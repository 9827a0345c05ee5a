package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/trapline/trapline/reports"
)

// What `trapline run --out DIR` does to DIR around the run, so that a gate can never read a previous
// run's results as this one's:
//   - at the start it marks DIR in progress (reports.InProgressFile, with the run's pid) and removes
//     the previous run's summary.json, junit.xml, report.html and evidence/ (the harness cleans only
//     the arms it runs, so old arms would stay beside new ones);
//   - a signal (SIGINT, SIGTERM) ends the run with an interrupted summary (state "interrupted", the
//     arms that ended, the arm cut off marked interrupted), which every gate refuses;
//   - a finished run writes summary.json, junit.xml and report.html, then removes the marker.
//
// The run's temporary folders (browser profiles, CDP profiles, image contexts) are made below one
// folder of the run's own, trapline-run-PID in the system's temporary folder (TMPDIR is pointed at
// it for the run and its child processes), removed at the end; a run killed by SIGKILL leaves it, and
// the next run removes every such folder whose process is gone.

// runTempPrefix names a run's temporary folder in the system's temporary folder.
const runTempPrefix = "trapline-run-"

// runTempBase is the folder a run's temporary folder is made in: the system's temporary folder, or
// /tmp when that path is too long. Chromium puts its singleton socket below TMPDIR
// (TMPDIR/trapline-run-PID-N/org.chromium.Chromium.XXXXXX/SingletonSocket) and aborts when the path
// passes the 108 bytes of a Unix socket's address (a test's or a CI's work folder as TMPDIR did).
func runTempBase() string {
	if dir := os.TempDir(); len(dir) <= maxRunTempBase {
		return dir
	}
	return "/tmp"
}

// maxRunTempBase leaves room below the 108-byte socket limit for the rest of Chromium's socket path
// (about 70 bytes: /trapline-run-PID-N/org.chromium.Chromium.XXXXXX/SingletonSocket).
const maxRunTempBase = 32

// runOut is trapline run's output folder while it runs.
type runOut struct {
	dir string
	// tmp is the run's temporary folder and oldTmp the TMPDIR it replaced (restored by close).
	tmp, oldTmp string
	hadTmp      bool
}

// beginRunOut prepares dir for a run: it refuses a folder another live run is writing, sweeps the
// temporary folders of killed runs, supersedes the previous run's results and marks dir in progress.
func beginRunOut(dir string, stdout io.Writer) (*runOut, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, withCode(exitBroken, fmt.Errorf("run: create the output folder: %w", err))
	}
	marker := filepath.Join(dir, reports.InProgressFile)
	if pid, ok := markerPID(marker); ok && pid != os.Getpid() && alive(pid) {
		return nil, withCode(exitUsage, fmt.Errorf("run: %s is being written by another trapline run (pid %d, %s): give this run another --out", dir, pid, marker))
	}
	if n := sweepRunTemps(runTempBase()); n > 0 {
		fmt.Fprintf(stdout, "trapline: removed %d temporary folder(s) of killed runs\n", n)
	}
	var old []string
	for _, name := range []string{reports.SummaryFile, reports.JUnitFile, reports.HTMLFile, reports.EvidenceDir} {
		p := filepath.Join(dir, name)
		if _, err := os.Lstat(p); err != nil {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			return nil, withCode(exitBroken, fmt.Errorf("run: supersede the previous run's %s: %w", p, err))
		}
		old = append(old, name)
	}
	if len(old) > 0 {
		fmt.Fprintf(stdout, "trapline: %s held a previous run; removed its %s\n", dir, strings.Join(old, ", "))
	}
	if err := os.WriteFile(marker, fmt.Appendf(nil, "pid %d\nstarted %s\n", os.Getpid(), time.Now().UTC().Format(time.RFC3339)), 0o644); err != nil {
		return nil, withCode(exitBroken, fmt.Errorf("run: mark %s in progress: %w", dir, err))
	}
	o := &runOut{dir: dir}
	o.oldTmp, o.hadTmp = os.LookupEnv("TMPDIR")
	tmp, err := os.MkdirTemp(runTempBase(), fmt.Sprintf("%s%d-", runTempPrefix, os.Getpid()))
	if err != nil {
		return nil, withCode(exitBroken, fmt.Errorf("run: temporary folder: %w", err))
	}
	o.tmp = tmp
	if err := os.Setenv("TMPDIR", tmp); err != nil {
		return nil, withCode(exitBroken, fmt.Errorf("run: TMPDIR: %w", err))
	}
	return o, nil
}

// close removes the run's temporary folder and restores TMPDIR. The in-progress marker stays unless
// finish or interrupted replaced it with a summary.
func (o *runOut) close() {
	if o.hadTmp {
		os.Setenv("TMPDIR", o.oldTmp)
	} else {
		os.Unsetenv("TMPDIR")
	}
	os.RemoveAll(o.tmp)
}

// end is cmdRun's last step: with err (the run did not finish), the interrupted summary when ctx was
// cancelled by a signal, else no summary (the run broke; err says why) and the marker removed; with
// no error, the summary, JUnit and HTML report, the table, and the gates.
func (o *runOut) end(ctx context.Context, s reports.Summary, err error, minCompleted float64, stdout io.Writer) error {
	if ctx.Err() != nil {
		return o.interrupted(s, err, stdout)
	}
	if err != nil {
		os.Remove(filepath.Join(o.dir, reports.InProgressFile))
		return err
	}
	s.Finish(time.Now())
	if err := o.write(s); err != nil {
		return withCode(exitBroken, err)
	}
	fmt.Fprintln(stdout)
	if err := reports.Table(stdout, s); err != nil {
		return withCode(exitBroken, err)
	}
	fmt.Fprintf(stdout, "summary: %s\njunit:   %s\nreport:  %s\n", filepath.Join(o.dir, reports.SummaryFile), filepath.Join(o.dir, reports.JUnitFile),
		filepath.Join(o.dir, reports.HTMLFile))
	if err := gate(s, nil); err != nil {
		return err
	}
	return gateUtility(s, minCompleted, stdout)
}

// write writes the run's summary, JUnit and HTML report into the folder and removes the marker.
func (o *runOut) write(s reports.Summary) error {
	if err := reports.MeasureEvidence(&s, o.dir); err != nil {
		return err
	}
	if err := reports.WriteJSON(filepath.Join(o.dir, reports.SummaryFile), s); err != nil {
		return err
	}
	if err := reports.WriteJUnit(filepath.Join(o.dir, reports.JUnitFile), reports.JUnitOf(s)); err != nil {
		return err
	}
	if err := reports.WriteHTMLFile(filepath.Join(o.dir, reports.HTMLFile), s, reports.HTMLOptions{SummaryDir: o.dir}); err != nil {
		return err
	}
	if err := os.Remove(filepath.Join(o.dir, reports.InProgressFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("run: %w", err)
	}
	return nil
}

// interrupted writes the summary of a run a signal stopped: state interrupted, the arms that ended.
// It exits 3: nothing was proven about the arms that did not run.
func (o *runOut) interrupted(s reports.Summary, cause error, stdout io.Writer) error {
	s.State = reports.StateInterrupted
	s.Finish(time.Now())
	werr := o.write(s)
	fmt.Fprintln(stdout)
	reports.Table(stdout, s)
	fmt.Fprintf(stdout, "summary: %s (interrupted: every gate refuses it)\n", filepath.Join(o.dir, reports.SummaryFile))
	msg := fmt.Sprintf("run interrupted by a signal after %d arm(s); %s records it as interrupted, and `trapline report` refuses it", len(s.Entries), filepath.Join(o.dir, reports.SummaryFile))
	if cause != nil {
		msg += " (" + cause.Error() + ")"
	}
	return errors.Join(withCode(exitBroken, errors.New(msg)), werr)
}

// markerPID reads the pid an in-progress marker names.
func markerPID(path string) (int, bool) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, false
	}
	first, _, _ := strings.Cut(string(b), "\n")
	pid, err := strconv.Atoi(strings.TrimPrefix(first, "pid "))
	return pid, err == nil && pid > 0
}

// alive says a process with this pid exists (signal 0: no signal is sent). EPERM means it exists
// under another user.
func alive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}

// sweepRunTemps removes the temporary folders (trapline-run-PID-*) of runs whose process is gone (a
// SIGKILL) and returns how many it removed. A folder of a live process, or one whose name has no
// pid, is left alone.
func sweepRunTemps(base string) int {
	ents, err := os.ReadDir(base)
	if err != nil {
		return 0
	}
	n := 0
	for _, e := range ents {
		rest, ok := strings.CutPrefix(e.Name(), runTempPrefix)
		if !ok || !e.IsDir() {
			continue
		}
		digits, _, _ := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(digits)
		if err != nil || pid <= 0 || pid == os.Getpid() || alive(pid) {
			continue
		}
		if os.RemoveAll(filepath.Join(base, e.Name())) == nil {
			n++
		}
	}
	return n
}
