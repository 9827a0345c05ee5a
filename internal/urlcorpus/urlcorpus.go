// Package urlcorpus reads the URL corpus (issue 15) kept in agentkit/policy/testdata/corpus: the path
// and host spellings, each with the rule the reference policy must give, and Chromium's recorded
// parse of them. agentkit/policy's corpus tests and agentkit/browser's Chromium recording both read
// it; only test files import this package.
package urlcorpus

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/trapline/trapline/agentkit/policy"
)

// Page is the page every corpus reference is resolved against.
const Page = "http://portale.interno.test/pratiche/3"

// ChromiumFile is the recording of Chromium's parse, in the corpus folder.
const ChromiumFile = "chromium.txt"

// Line is one spelling of the corpus.
type Line struct {
	File string // the corpus file, as dir and name were given
	Line int
	Rule policy.Rule // what the reference policy must decide on every layer
	Ref  string      // the reference as the agent gets it (absolute, or relative to Page)
	Note string
}

// Load reads the corpus file name in dir (lines RULE<TAB>SPELLING[<TAB>NOTE]; a spelling in double
// quotes is a Go string literal); prefix is put in front of every spelling. A malformed line is an
// error naming the file and the line.
func Load(dir, name, prefix string) ([]Line, error) {
	path := filepath.Join(dir, name)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []Line
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		text := sc.Text()
		if strings.TrimSpace(text) == "" || strings.HasPrefix(text, "#") {
			continue
		}
		parts := strings.SplitN(text, "\t", 3)
		if len(parts) < 2 {
			return nil, fmt.Errorf("%s:%d: want RULE<TAB>SPELLING, got %q", path, n, text)
		}
		spelling := parts[1]
		if strings.HasPrefix(spelling, `"`) {
			if spelling, err = strconv.Unquote(spelling); err != nil {
				return nil, fmt.Errorf("%s:%d: spelling %s: %v", path, n, parts[1], err)
			}
		}
		l := Line{File: path, Line: n, Rule: policy.Rule(parts[0]), Ref: prefix + spelling}
		if len(parts) == 3 {
			l.Note = parts[2]
		}
		out = append(out, l)
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

// All reads the whole corpus in dir: paths.txt, each spelling on http://portale.interno.test, then
// hosts.txt as written.
func All(dir string) (paths, hosts []Line, err error) {
	if paths, err = Load(dir, "paths.txt", "http://portale.interno.test"); err != nil {
		return nil, nil, err
	}
	if hosts, err = Load(dir, "hosts.txt", ""); err != nil {
		return nil, nil, err
	}
	return paths, hosts, nil
}

// Chromium reads ChromiumFile in dir: Chromium's new URL(ref, Page).href for every corpus reference
// ("FAIL" where its parser rejects it), keyed by reference. Lines are strconv-quoted ref<TAB>href.
func Chromium(dir string) (map[string]string, error) {
	path := filepath.Join(dir, ChromiumFile)
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		q, href, ok := strings.Cut(line, "\t")
		ref, err := strconv.Unquote(q)
		if !ok || err != nil {
			return nil, fmt.Errorf("%s: bad line %q", ChromiumFile, line)
		}
		out[ref] = href
	}
	return out, nil
}
