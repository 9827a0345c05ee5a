package main

import (
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/agentkit/policy"
)

// cmdSetup installs the Playwright driver and checks the browser; unless browserOnly, it also links
// ffmpeg for video and installs the agent tools.
func cmdSetup(stdout io.Writer, browserOnly bool) error {
	if err := browser.Install(os.Environ()); err != nil {
		return withCode(exitBroken, err)
	}
	fmt.Fprintln(stdout, "playwright driver ready")
	// The default headless browser is Debian's chromium-headless-shell (make setup installs it).
	exe, err := browser.Executable("", os.Environ())
	if err != nil {
		return withCode(exitBroken, fmt.Errorf("%w (apt-get install -y chromium-headless-shell, or make setup; TRAPLINE_CHROMIUM=chromium selects Debian's chromium)", err))
	}
	fmt.Fprintln(stdout, "browser:", exe)
	if browserOnly {
		return nil
	}
	// Video (--video, TRAPLINE_VIDEO) needs ffmpeg where Playwright looks for it.
	if link, err := browser.LinkFFmpeg(os.Getenv("PLAYWRIGHT_BROWSERS_PATH")); err != nil {
		fmt.Fprintln(stdout, "video recording unavailable:", err)
	} else {
		fmt.Fprintln(stdout, "ffmpeg for video:", link)
	}
	return setupAgentTools(stdout)
}

func cmdTrapsList(args []string, stdout io.Writer) error {
	fset := newFlags("traps list")
	var dirs dirsFlag
	fset.Var(&dirs, "traps-dir", "a trap pack folder to list beside the catalog (repeatable)")
	if err := parseFlags(fset, args); err != nil {
		return withCode(exitUsage, err)
	}
	if fset.NArg() != 0 {
		return withCode(exitUsage, fmt.Errorf("traps list: unexpected arguments %q\n%s", fset.Args(), trapsListUsage))
	}
	r, err := registry(dirs)
	if err != nil {
		return withCode(exitUsage, err)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tCATEGORY\tFORBIDDEN EFFECTS\tEXPECTED GUARDS")
	for _, t := range r.All() {
		var fs, gs []string
		for _, f := range t.Forbidden {
			fs = append(fs, f.String())
		}
		for _, g := range t.Guards {
			gs = append(gs, g.String())
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", t.ID, t.Category, strings.Join(fs, ", "), strings.Join(gs, ", "))
	}
	return tw.Flush()
}

// cmdPolicyLint validates one policy file and prints its summary.
func cmdPolicyLint(args []string, stdout io.Writer) error {
	fset := newFlags("policy lint")
	if err := parseFlags(fset, args); err != nil {
		return withCode(exitUsage, err)
	}
	if fset.NArg() != 1 {
		return withCode(exitUsage, fmt.Errorf("policy lint takes exactly one file (got %q)\n%s", fset.Args(), policyLintUsage))
	}
	p, err := policy.Load(fset.Arg(0))
	if err != nil {
		return withCode(exitUsage, err)
	}
	fmt.Fprintln(stdout, p.Summary())
	for _, w := range p.Warnings() {
		fmt.Fprintln(stdout, "warning: "+w)
	}
	return nil
}

// cmdRulesList prints the rule registry: every rule id with its layer, category and meaning.
func cmdRulesList(args []string, stdout io.Writer) error {
	fset := newFlags("rules list")
	layer := fset.String("layer", "", "print only the rules of this layer (planner, decide, resolve, loop, request, browser, proxy)")
	if err := parseFlags(fset, args); err != nil {
		return withCode(exitUsage, err)
	}
	if fset.NArg() != 0 {
		return withCode(exitUsage, fmt.Errorf("rules list: unexpected arguments %q\n%s", fset.Args(), rulesListUsage))
	}
	rules := policy.Registry()
	want := policy.Layer(*layer)
	if want != "" && !slices.ContainsFunc(rules, func(r policy.RuleInfo) bool { return r.Layer == want }) {
		return withCode(exitUsage, fmt.Errorf("rules list: --layer %q: no such layer (want planner, decide, resolve, loop, request, browser or proxy)", *layer))
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "RULE\tLAYER\tCATEGORY\tMEANING")
	for _, r := range rules {
		if r.ID == policy.RuleAllowed || (want != "" && r.Layer != want) {
			continue
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.ID, r.Layer, r.Category, r.Meaning)
	}
	return tw.Flush()
}
