package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The docs' coverage check: every trapline or make command in a shell block of README.md or docs/*.md
// is run, as written, by a script of testdata/script (docs as tests), or its block is marked
// illustrative, with the reason, on the line before it:
//
//	<!-- illustrative: needs a model endpoint (TRAPLINE_LLM_*) -->
//	```sh
//	bin/trapline run --planner llm --model qwen2.5:7b
//	```
//
// `bin/trapline`, `go run ./cmd/trapline` and `trapline` are the same command; a script runs it as
// `exec trapline ...` or `exits CODE trapline ...`.

// illustrativeMarker is the mark of a block that is not run, and why.
var illustrativeMarker = regexp.MustCompile(`^<!--\s*illustrative:\s*(.*?)\s*-->$`)

// docCommand is one command of a doc's shell block.
type docCommand struct {
	file string
	line int
	cmd  string // normalised: "trapline ARGS" or "make ARGS"
}

// shellLangs are the fences whose blocks are shell commands.
var shellLangs = map[string]bool{"sh": true, "bash": true, "shell": true, "console": true}

// docCommands returns the commands of md's shell blocks that no illustrative mark covers, and the
// problems of its marks (a mark without a reason).
func docCommands(file, md string) (cmds []docCommand, problems []string) {
	lines := strings.Split(md, "\n")
	for i := 0; i < len(lines); i++ {
		lang, ok := strings.CutPrefix(strings.TrimSpace(lines[i]), "```")
		if !ok {
			continue
		}
		start := i
		end := start + 1
		for end < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[end]), "```") {
			end++
		}
		i = end
		if !shellLangs[strings.TrimSpace(lang)] {
			continue
		}
		prev := start - 1
		for prev >= 0 && strings.TrimSpace(lines[prev]) == "" {
			prev--
		}
		if prev >= 0 {
			if m := illustrativeMarker.FindStringSubmatch(strings.TrimSpace(lines[prev])); m != nil {
				if m[1] == "" {
					problems = append(problems, fmt.Sprintf("%s:%d: an illustrative mark needs its reason", file, prev+1))
				}
				continue
			}
		}
		vars := map[string]string{} // the block's NAME=value lines, substituted as the shell would
		for j := start + 1; j < end; j++ {
			first := j
			text := lines[j]
			for strings.HasSuffix(text, `\`) && j+1 < end {
				j++
				text = strings.TrimSuffix(text, `\`) + " " + lines[j]
			}
			text = stripShellComment(text)
			if m := blockVariable.FindStringSubmatch(strings.TrimSpace(text)); m != nil {
				vars[m[1]] = m[2]
				continue
			}
			for name, v := range vars {
				text = strings.ReplaceAll(strings.ReplaceAll(text, "${"+name+"}", v), "$"+name, v)
			}
			if c, ok := normaliseCommand(text); ok {
				cmds = append(cmds, docCommand{file: file, line: first + 1, cmd: c})
			}
		}
	}
	return cmds, problems
}

// blockVariable is a line of a block that only sets a shell variable (T=tools/node_modules).
var blockVariable = regexp.MustCompile(`^([A-Za-z_][A-Za-z0-9_]*)=(\S+)$`)

var envAssignment = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=\S*$`)

// normaliseCommand is "trapline ARGS" or "make ARGS" for a command line that runs one (after any
// NAME=value assignments), with its words separated by single spaces.
func normaliseCommand(s string) (string, bool) {
	words := strings.Fields(s)
	for len(words) > 0 && envAssignment.MatchString(words[0]) {
		words = words[1:]
	}
	switch {
	case len(words) == 0:
		return "", false
	case len(words) >= 3 && words[0] == "go" && words[1] == "run" && words[2] == "./cmd/trapline":
		words = append([]string{"trapline"}, words[3:]...)
	case words[0] == "bin/trapline" || words[0] == "./bin/trapline":
		words[0] = "trapline"
	case words[0] != "trapline" && words[0] != "make":
		return "", false
	}
	return strings.Join(withoutRedirections(words), " "), true
}

// redirection is a shell word that redirects (>FILE, 2>&1, <FILE) or puts the command in the
// background (& or testscript's &NAME&): how a command runs, not what it runs.
var redirection = regexp.MustCompile(`^([0-9]?>>?|&>|<|&)`)

// bareRedirection is a redirection whose file is the next word.
var bareRedirection = regexp.MustCompile(`^([0-9]?>>?|&>|<)$`)

// withoutRedirections drops words' redirections and background marks (with the file word after a
// bare > or <), so `trapline serve ... >serve.out &` is the command `trapline serve ...`.
func withoutRedirections(words []string) []string {
	out := words[:0:0]
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !redirection.MatchString(w) {
			out = append(out, w)
			continue
		}
		if bareRedirection.MatchString(w) && i+1 < len(words) {
			i++ // a bare ">" or "2>": its file is the next word
		}
	}
	return out
}

// stripShellComment drops a trailing # comment outside quotes.
func stripShellComment(s string) string {
	var quote rune
	for i, r := range s {
		switch {
		case quote != 0:
			if r == quote {
				quote = 0
			}
		case r == '\'' || r == '"':
			quote = r
		case r == '#' && (i == 0 || s[i-1] == ' ' || s[i-1] == '\t'):
			return s[:i]
		}
	}
	return s
}

// scriptCommands is every trapline or make command the scripts under dir run, normalised.
func scriptCommands(t *testing.T, dir string) map[string]string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no scripts in %s: %v", dir, err)
	}
	out := map[string]string{}
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		vars := map[string]string{} // the script's `env NAME=value` lines, substituted as testscript does
		for _, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(line, "-- ") && strings.HasSuffix(line, " --") {
				break // the archive's files
			}
			if name, v, ok := strings.Cut(strings.TrimPrefix(line, "env "), "="); ok && strings.HasPrefix(line, "env ") && !strings.ContainsAny(name, " $") {
				vars[name] = v
				continue
			}
			for name, v := range vars {
				line = strings.ReplaceAll(strings.ReplaceAll(line, "${"+name+"}", v), "$"+name, v)
			}
			if c, ok := scriptCommand(line); ok {
				out[c] = filepath.Base(f)
			}
		}
	}
	return out
}

// scriptCommand is the trapline command a script line runs: `[cond] ! exec trapline ...`,
// `exits CODE trapline ...` or `exec sh -c 'trapline ...'` (for a shell glob).
func scriptCommand(line string) (string, bool) {
	words := strings.Fields(line)
	for len(words) > 0 && (strings.HasPrefix(words[0], "[") || words[0] == "!" || words[0] == "?") {
		words = words[1:]
	}
	switch {
	case len(words) >= 2 && words[0] == "exec":
		words = words[1:]
	case len(words) >= 3 && words[0] == "exits":
		words = words[2:]
	default:
		return "", false
	}
	if len(words) >= 3 && words[0] == "sh" && words[1] == "-c" {
		inner := strings.Join(withoutRedirections(words[2:]), " ") // the background mark after the quote
		words = strings.Fields(strings.Trim(inner, `'"`))
		if len(words) > 0 && words[0] == "exec" {
			words = words[1:] // sh -c 'exec trapline ...': the shell becomes trapline (kill reaches it)
		}
	}
	return normaliseCommand(strings.Join(words, " "))
}

// docFiles are the documents the check reads.
func docFiles(t *testing.T) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("..", "..", "docs", "*.md"))
	if err != nil {
		t.Fatal(err)
	}
	return append([]string{filepath.Join("..", "..", "README.md")}, files...)
}

// TestDocCommandsAreRun is the coverage check: a documented command that no script runs and no mark
// excuses fails, naming its file and line.
func TestDocCommandsAreRun(t *testing.T) {
	run := scriptCommands(t, scriptDir)
	n := 0
	for _, f := range docFiles(t) {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(filepath.Join("..", ".."), f)
		cmds, problems := docCommands(rel, string(b))
		for _, p := range problems {
			t.Error(p)
		}
		for _, c := range cmds {
			n++
			if _, ok := run[c.cmd]; !ok {
				t.Errorf("%s:%d: %q is run by no script of cmd/trapline/%s and its block is not marked <!-- illustrative: REASON -->", c.file, c.line, c.cmd, scriptDir)
			}
		}
	}
	t.Logf("%d documented commands checked", n)
}

// TestDocCheckCatchesAnUnmarkedCommand: the check fails on a new command no script runs, passes when
// its block is marked with a reason, and refuses a mark without one.
func TestDocCheckCatchesAnUnmarkedCommand(t *testing.T) {
	run := scriptCommands(t, scriptDir)
	md := "# New\n\n```sh\nbin/trapline policy lint policies/reference.yml   # runs\ngo run ./cmd/trapline frobnicate --now \\\n  --please\n```\n"
	cmds, problems := docCommands("NEW.md", md)
	var missing []string
	for _, c := range cmds {
		if _, ok := run[c.cmd]; !ok {
			missing = append(missing, fmt.Sprintf("%s:%d: %s", c.file, c.line, c.cmd))
		}
	}
	if len(problems) != 0 || len(missing) != 1 || missing[0] != "NEW.md:5: trapline frobnicate --now --please" {
		t.Errorf("unmarked new command: missing %q, problems %q; want only NEW.md:5's frobnicate", missing, problems)
	}
	marked := strings.Replace(md, "```sh", "<!-- illustrative: not a real command -->\n```sh", 1)
	if cmds, problems := docCommands("NEW.md", marked); len(cmds) != 0 || len(problems) != 0 {
		t.Errorf("marked block: commands %v, problems %q; want none", cmds, problems)
	}
	bare := strings.Replace(md, "```sh", "<!-- illustrative: -->\n```sh", 1)
	if _, problems := docCommands("NEW.md", bare); len(problems) != 1 {
		t.Errorf("a mark without a reason: problems %q, want one", problems)
	}
}

// TestDocCheckIgnoresRedirections: a server the docs start in the background with its output in a
// file is the command a script starts the same way (through sh -c 'exec ...', whose output waitfor
// reads), and a redirection or background mark never hides a different command.
func TestDocCheckIgnoresRedirections(t *testing.T) {
	const want = "trapline proxy --policy reference --map a=127.0.0.1:1"
	for _, doc := range []string{
		"trapline proxy --policy reference --map a=127.0.0.1:1 >proxy.out &",
		"bin/trapline proxy --policy reference --map a=127.0.0.1:1 > proxy.out 2>&1 &",
		"trapline proxy --policy reference --map a=127.0.0.1:1",
	} {
		if got, _ := normaliseCommand(doc); got != want {
			t.Errorf("doc line %q: %q, want %q", doc, got, want)
		}
	}
	for _, script := range []string{
		"exec sh -c 'exec trapline proxy --policy reference --map a=127.0.0.1:1 >proxy.out 2>&1' &proxy&",
		"exec sh -c 'trapline proxy --policy reference --map a=127.0.0.1:1 >proxy.out' &",
		"exec trapline proxy --policy reference --map a=127.0.0.1:1 &",
	} {
		if got, _ := scriptCommand(script); got != want {
			t.Errorf("script line %q: %q, want %q", script, got, want)
		}
	}
	if got, _ := normaliseCommand("trapline proxy --policy permissive >proxy.out &"); got == want {
		t.Errorf("a different policy normalised to the same command")
	}
}
