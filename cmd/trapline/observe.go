package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/credentials"
	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/loginpolicy"
	"github.com/trapline/trapline/policies"
	"github.com/trapline/trapline/traps"
	"github.com/trapline/trapline/world"
)

const observeUsage = `usage: trapline observe [--trap ID] [--traps-dir DIR]... [--upstream HOST=URL]... [--policy P] [URL]

Prints the observation of a page as the planner and a pack's attack: and diligent: steps get it: one
line per element with its ref, role and name (icon-font glyphs dropped, as steps match them), whether
it is on top (no: an overlay, a panel, a menu or a dialog covers it, and a step acting on it is refused
with target_covered until that is closed), its link and its states. The page is the trap's start page (--trap, default decoy-delete), or URL, opened in a
world with the trap's pages and your --upstream apps behind the world's proxy, as a run's arm opens it.
Use it to write steps that name what the page shows, and to see why a step matched nothing.
exit: 0 printed; 2 usage; 3 the world, the browser or the page broke.`

// cmdObserve opens one page of a world in the run's browser and prints its observation.
func cmdObserve(args []string, stdout io.Writer) error {
	fset := newFlags("observe")
	trapFlag := fset.String("trap", "decoy-delete", "the trap whose pages the world serves (and whose start page is read without URL)")
	policyFlag := fset.String("policy", policies.Permissive, "the policy of the world's proxy and the browser's route gate: an embedded name or a file")
	var dirs, upstream dirsFlag
	fset.Var(&dirs, "traps-dir", "a trap pack folder whose traps --trap may name (repeatable)")
	fset.Var(&upstream, "upstream", "your own staging app: `HOST=URL` (repeatable); the default policy allows its host")
	loginFlag := fset.String("login", "", "a login file the deterministic login tool runs before the page is read (default: the trap's login:, its password from the environment)")
	if err := parseFlags(fset, args); err != nil {
		return withCode(exitUsage, err)
	}
	if fset.NArg() > 1 || slices.ContainsFunc(upstream, isBareUpstream) {
		return withCode(exitUsage, fmt.Errorf("observe: at most one URL, and --upstream as HOST=URL (got %q)\n%s", fset.Args(), observeUsage))
	}
	ctx, stop := untilStopped()
	defer stop()
	obs, err := observePage(ctx, observeRequest{dirs: dirs, upstream: upstream, trapID: *trapFlag, policyPath: *policyFlag, loginFile: *loginFlag, target: fset.Arg(0)})
	if err != nil {
		return err
	}
	return printObservation(stdout, obs)
}

// observePage starts the world and a browser session behind its proxy, opens target (the trap's start
// page when empty) and returns its observation.
func observePage(ctx context.Context, req observeRequest) (*observe.Observation, error) {
	r, err := registry(req.dirs)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	trap, err := r.Lookup(req.trapID)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	ups, err := parseUpstreams(req.upstream, "", "", "")
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	pol, err := policies.Resolve(req.policyPath)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	if pol, err = allowUpstreams(pol, req.policyPath, ups); err != nil {
		return nil, withCode(exitUsage, err)
	}
	login, err := observeLogin(req.loginFile, trap)
	if err != nil {
		return nil, withCode(exitUsage, err)
	}
	if login != nil {
		if pol, err = loginpolicy.Allow(pol, *login); err != nil {
			return nil, withCode(exitUsage, err)
		}
	}
	target := req.target
	dir, err := os.MkdirTemp("", "trapline-observe-")
	if err != nil {
		return nil, withCode(exitBroken, fmt.Errorf("observe: %w", err))
	}
	defer os.RemoveAll(dir)
	fx := trap.Fixtures()
	fx.Upstreams = append(fx.Upstreams, ups...)
	w, err := world.Start(world.Spec{Policy: pol, Fixtures: fx, Dir: dir})
	if err != nil {
		return nil, withCode(exitBroken, fmt.Errorf("observe: %w", err))
	}
	defer w.Close()
	if target == "" {
		target = harness.StartURL(w, trap)
	}
	b, err := browser.Launch(browser.Options{Environ: os.Environ(), CA: w.CA()})
	if err != nil {
		return nil, withCode(exitBroken, err)
	}
	defer b.Close()
	var secrets []string
	if login != nil {
		secrets = append(secrets, login.Password)
	}
	rec, err := evidence.Open(dir, evidence.NewRedactor(secrets...))
	if err != nil {
		return nil, withCode(exitBroken, err)
	}
	defer rec.Close()
	sess, err := b.NewSession(browser.SessionOptions{ProxyURL: w.ProxyURL(), Policy: pol, Recorder: rec})
	if err != nil {
		return nil, withCode(exitBroken, err)
	}
	defer sess.Close()
	if login != nil {
		if err := sess.Login(ctx, *login); err != nil {
			return nil, withCode(exitBroken, fmt.Errorf("observe: the login failed: %w", err))
		}
	}
	if res := sess.Goto(ctx, target); res.Err != nil {
		return nil, withCode(exitBroken, fmt.Errorf("observe: open %s: %w", target, res.Err))
	}
	obs, err := sess.Observe(ctx)
	if err != nil {
		return nil, withCode(exitBroken, fmt.Errorf("observe: %w", err))
	}
	return obs, nil
}

// observeRequest is what `trapline observe` was asked: the packs, the apps, the trap, the policy,
// the login file ("" for the trap's login:, if any) and the page ("" for the trap's start page).
type observeRequest struct {
	dirs, upstream                        []string
	trapID, policyPath, loginFile, target string
}

// observeLogin is the login the page is read after: --login's file, else the trap's login: with its
// password from the environment, else none.
func observeLogin(file string, trap traps.Trap) (*credentials.Login, error) {
	if file != "" {
		l, err := credentials.Load(file, os.Getenv)
		if err != nil {
			return nil, fmt.Errorf("observe: --login: %w", err)
		}
		return &l, nil
	}
	if trap.Login == nil {
		return nil, nil
	}
	l, err := loginpolicy.Resolve(*trap.Login, os.Getenv)
	if err != nil {
		return nil, fmt.Errorf("observe: %w", err)
	}
	return &l, nil
}

// printObservation writes the page's URL, then one line per element: its ref, role, name as a step
// names it, link and states.
func printObservation(w io.Writer, obs *observe.Observation) error {
	fmt.Fprintf(w, "page %s (snapshot %s, %d elements)\n", obs.URL, obs.SnapshotID, len(obs.Elements()))
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "REF\tROLE\tNAME\tON TOP\tLINK\tSTATES")
	for _, n := range obs.Elements() {
		fmt.Fprintf(tw, "%s\t%s\t%q\t%s\t%s\t%s\n", n.RawRef, n.Role, n.Name, onTop(n), n.URL, states(n.States))
	}
	if !obs.Complete {
		fmt.Fprintf(tw, "incomplete: %s\n", strings.Join(obs.Warnings, "; "))
	}
	return tw.Flush()
}

// onTop says whether the element can be acted on where it is: "yes" ("yes (by its label)" for a
// visually hidden checkbox reached through its label), or "no (covered by aside.panel)"
// when another element lies on top of it (observe.Node.CoveredBy): a step or the adversary acting on
// it is refused (target_covered) until what covers it is closed.
func onTop(n observe.Node) string {
	switch {
	case n.CoveredBy != "":
		return "no (covered by " + n.CoveredBy + ")"
	case n.ViaLabel:
		return "yes (by its label)" // a hidden native toggle, clicked through its visible label
	}
	return "yes"
}

// states renders an element's states as "checked,disabled,level=2", sorted.
func states(m map[string]string) string {
	var out []string
	for k, v := range m {
		if v != "" && v != "true" {
			k += "=" + v
		}
		out = append(out, k)
	}
	slices.Sort(out)
	return strings.Join(out, ",")
}
