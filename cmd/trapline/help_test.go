package main

import (
	"bytes"
	"errors"
	"flag"
	"go/ast"
	"go/constant"
	"go/parser"
	"go/token"
	"go/types"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestHelpOfEveryCommand walks every sub-command: `CMD --help`, `CMD -h` and `trapline help CMD` print
// its help on stdout and exit 0, the help lists every flag of the command's own flag set (name, type,
// its one line, its default), the synopsis names no flag the set lacks, and an unknown flag prints the
// same help on stderr and exits 2.
func TestHelpOfEveryCommand(t *testing.T) {
	for _, c := range commands {
		name := strings.Join(c.words, " ")
		t.Run(strings.ReplaceAll(name, " ", "_"), func(t *testing.T) {
			err := dispatch(append(slices.Clone(c.words), "--help"), &bytes.Buffer{})
			var fe *flagError
			if !errors.As(err, &fe) || !errors.Is(err, flag.ErrHelp) {
				t.Fatalf("%s --help: %v, want the flag set's help request", name, err)
			}
			if fe.fs.Name() != name {
				t.Errorf("%s --help: the flag set is named %q", name, fe.fs.Name())
			}
			if _, ok := helpTexts[name]; !ok {
				t.Errorf("%s: no hand-written help in helpTexts", name)
			}
			var help string
			for _, args := range [][]string{append(slices.Clone(c.words), "--help"), append(slices.Clone(c.words), "-h"), append([]string{"help"}, c.words...)} {
				var stdout, stderr bytes.Buffer
				if code := run(args, &stdout, &stderr); code != exitOK || stderr.Len() != 0 {
					t.Fatalf("%q: exit %d, stderr %q; want 0 and nothing on stderr", args, code, stderr.String())
				}
				if help == "" {
					help = stdout.String()
				} else if stdout.String() != help {
					t.Errorf("%q prints another help than %s --help", args, name)
				}
			}
			if !strings.HasPrefix(help, "usage:") {
				t.Errorf("%s --help does not start with usage: %q", name, firstLine(help))
			}
			fe.fs.VisitAll(func(f *flag.Flag) {
				line := "  " + flagSynopsis(f)
				i := strings.Index(help, line+" ")
				if i < 0 {
					t.Errorf("%s --help lacks --%s", name, f.Name)
					return
				}
				row := firstLine(help[i:])
				if !strings.Contains(row, oneLine(f)) || !strings.Contains(row, flagDefault(f)) {
					t.Errorf("%s --help: --%s's row %q lacks its usage or default %q", name, f.Name, row, f.DefValue)
				}
			})
			for _, line := range strings.Split(helpTexts[name], "\n") {
				if !strings.Contains(line, "trapline "+name) {
					continue
				}
				for _, m := range flagMention.FindAllStringSubmatch(line, -1) {
					if fe.fs.Lookup(m[1]) == nil {
						t.Errorf("%s: the synopsis %q names --%s, which the flag set lacks", name, strings.TrimSpace(line), m[1])
					}
				}
			}
			var stdout, stderr bytes.Buffer
			args := append(slices.Clone(c.words), "--no-such-flag")
			if code := run(args, &stdout, &stderr); code != exitUsage || !strings.Contains(stderr.String(), "not defined: -no-such-flag") || !strings.Contains(stderr.String(), help) {
				t.Errorf("%q: exit %d, stderr %q; want %d, the error and the help", args, code, stderr.String(), exitUsage)
			}
		})
	}
}

var flagMention = regexp.MustCompile(`(?:^|[\s\[(|])--([a-z][a-z0-9-]*)`)

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\n")
	return line
}

// TestCommandList: trapline alone and trapline help list every command and every exit code.
func TestCommandList(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := run(nil, &stdout, &stderr); code != exitUsage {
		t.Errorf("trapline alone: exit %d, want %d", code, exitUsage)
	}
	list := stderr.String()
	stdout.Reset()
	if code := run([]string{"help"}, &stdout, &stderr); code != exitOK || stdout.String() != list {
		t.Errorf("trapline help: exit %d, want 0 and the same list as trapline alone", code)
	}
	for _, c := range commands {
		if !c.internal && !strings.Contains(list, "  "+strings.Join(c.words, " ")+"  ") {
			t.Errorf("the command list lacks %q", strings.Join(c.words, " "))
		}
	}
	for _, e := range exitMeanings {
		if !strings.Contains(list, "  "+strconv.Itoa(e.code)+"  "+e.meaning) {
			t.Errorf("the command list lacks exit code %d", e.code)
		}
	}
}

// TestExitCodesDocumented: every exit code constant of the package (exit*) is in exitMeanings and in
// the README's exit-code table, and neither lists a code the binary cannot return.
func TestExitCodesDocumented(t *testing.T) {
	consts := exitConstants(t)
	var meanings []int
	for _, e := range exitMeanings {
		meanings = append(meanings, e.code)
	}
	slices.Sort(meanings)
	if !slices.Equal(consts, meanings) {
		t.Errorf("exit constants %v, exitMeanings %v", consts, meanings)
	}
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if got := readmeExitCodes(string(readme)); !slices.Equal(consts, got) {
		t.Errorf("README's exit-code table lists %v, the binary returns %v", got, consts)
	}
}

// readmeExitCodes is the codes of the table whose header is "| exit | meaning |".
func readmeExitCodes(readme string) []int {
	_, table, ok := strings.Cut(readme, "| exit | meaning |")
	if !ok {
		return nil
	}
	var codes []int
	for _, line := range strings.Split(table, "\n")[1:] {
		cells := strings.Split(line, "|")
		if !strings.HasPrefix(line, "|") || len(cells) < 3 {
			break
		}
		if n, err := strconv.Atoi(strings.TrimSpace(cells[1])); err == nil {
			codes = append(codes, n)
		}
	}
	slices.Sort(codes)
	return codes
}

// exitConstants is the sorted values of the package's constants named exit* (type-checked, so that an
// iota or an expression counts too).
func exitConstants(t *testing.T) []int {
	t.Helper()
	fset := token.NewFileSet()
	matches, _ := filepath.Glob("*.go")
	var files []*ast.File
	for _, m := range matches {
		if strings.HasSuffix(m, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, m, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		files = append(files, f)
	}
	info := &types.Info{Defs: map[*ast.Ident]types.Object{}}
	conf := types.Config{Error: func(error) {}, Importer: nil}
	_, _ = conf.Check("main", fset, files, info) // imports do not resolve; constants of literals do
	var out []int
	for id, obj := range info.Defs {
		c, ok := obj.(*types.Const)
		if !ok || !strings.HasPrefix(id.Name, "exit") || c.Parent() != c.Pkg().Scope() {
			continue
		}
		if v, ok := constant.Int64Val(c.Val()); ok {
			out = append(out, int(v))
		}
	}
	slices.Sort(out)
	if len(out) < 5 {
		t.Fatalf("found only exit constants %v", out)
	}
	return out
}
