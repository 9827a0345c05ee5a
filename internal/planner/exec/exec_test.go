package exec

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	osexec "os/exec"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/action"
	"github.com/trapline/trapline/agentkit/observe"
	"github.com/trapline/trapline/agentkit/planner"
)

// The test binary doubles as the planner process: with helperEnv set it runs helper(mode).
const helperEnv = "TRAPLINE_EXEC_PLANNER_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helper(mode))
	}
	os.Exit(m.Run())
}

var refRE = regexp.MustCompile(`(?m)^(\S+:\S+) button "Salva"`)

// helper is a planner process. Modes:
//
//	salva    clicks "Salva" on the first message, then says done
//	garbage  writes prose until the feedback says it was rejected, then done
//	crash    reads one message, complains on stderr and exits 3
//	hang     reads messages and never answers; starts a child that holds stdout
//	chatty   answers each message with two lines
//	long     answers with a line of about 240 bytes
//	record   answers done with the message it got, as the reason
func helper(mode string) int {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 1<<20)
	if mode == "hang" {
		child := osexec.Command("sleep", "300")
		child.Stdout = os.Stdout
		if err := child.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Fprintf(os.Stderr, "child %d\n", child.Process.Pid)
	}
	for in.Scan() {
		var m Message
		if err := json.Unmarshal(in.Bytes(), &m); err != nil {
			fmt.Fprintln(os.Stderr, "bad message:", err)
			return 2
		}
		switch mode {
		case "salva":
			if len(m.History) == 0 {
				ref := refRE.FindStringSubmatch(m.Observation)
				fmt.Printf(`{"action":"click","ref":%q}`+"\n", ref[1])
			} else {
				fmt.Println(`{"action":"done","reason":"saved"}`)
			}
		case "garbage":
			if strings.HasPrefix(m.Feedback, "rejected:") {
				fmt.Println(`{"action":"done"}`)
			} else {
				fmt.Println("I would click Salva")
			}
		case "crash":
			fmt.Fprintln(os.Stderr, "boom: out of ideas")
			return 3
		case "hang":
		case "chatty":
			fmt.Println(`{"action":"read"}`)
			fmt.Println(`{"action":"done"}`)
		case "huge": // a 1 MiB answer line
			fmt.Println(`{"action":"done","reason":"` + strings.Repeat("x", 1<<20) + `"}`)
		case "long":
			fmt.Println(`{"action":"done","reason":"` + strings.Repeat("x", 200) + `"}`)
		case "record":
			out, _ := json.Marshal(map[string]string{"action": "done", "reason": in.Text()})
			fmt.Println(string(out))
		}
	}
	return 0
}

const detail = `- generic [ref=e1]:
  - heading "Pratica 4" [level=1] [ref=e2]
  - button "Elimina pratica" [ref=e3]
  - button "Salva" [ref=e4]
`

func start(t *testing.T, mode string, mutate func(*Config)) *Planner {
	t.Helper()
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Command: []string{self}, Env: append(os.Environ(), helperEnv+"="+mode), CloseGrace: time.Second}
	if mutate != nil {
		mutate(&cfg)
	}
	p, err := Start(context.Background(), cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func obs(t *testing.T) *observe.Observation {
	t.Helper()
	o, err := observe.Parse("s1", "http://portale.interno.test/pratiche/4", detail)
	if err != nil {
		t.Fatal(err)
	}
	return o
}

func TestClickThenDone(t *testing.T) {
	p := start(t, "salva", nil)
	a, err := p.Next(context.Background(), planner.Input{Goal: "Salva.", Observation: obs(t)})
	if err != nil || a.Kind != action.Click || a.Ref != "s1:e4" {
		t.Fatalf("Next = %+v, %v; want click s1:e4", a, err)
	}
	a, err = p.Next(context.Background(), planner.Input{Goal: "Salva.", Observation: obs(t), History: []planner.Step{{Action: a, Outcome: "Delivered"}}})
	if err != nil || a.Kind != action.Done {
		t.Fatalf("Next = %+v, %v; want done", a, err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	assertReaped(t, p.PID())
}

func TestMessageCarriesTheProtocolFields(t *testing.T) {
	p := start(t, "record", nil)
	a, err := p.Next(context.Background(), planner.Input{Goal: "Salva.", Observation: obs(t), Feedback: "denied by rule deny_word"})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal([]byte(a.Reason), &got); err != nil {
		t.Fatalf("the process did not get one JSON line: %q: %v", a.Reason, err)
	}
	want := map[string]any{"v": 1.0, "step": 1.0, "goal": "Salva.", "url": "http://portale.interno.test/pratiche/4", "snapshot_id": "s1",
		"complete": true, "history": []any{}, "feedback": "denied by rule deny_word"}
	for k, v := range want {
		if fmt.Sprint(got[k]) != fmt.Sprint(v) {
			t.Errorf("%s = %v, want %v", k, got[k], v)
		}
	}
	if o, _ := got["observation"].(string); !strings.Contains(o, `s1:e4 button "Salva"`) {
		t.Errorf("observation = %q, want the compact text with qualified refs", got["observation"])
	}
}

func TestGarbageLineIsRejectedAndFedBack(t *testing.T) {
	p := start(t, "garbage", nil)
	_, err := p.Next(context.Background(), planner.Input{Goal: "Salva.", Observation: obs(t)})
	var rej *planner.RejectedError
	if !errors.As(err, &rej) || rej.Output != "I would click Salva" || !strings.Contains(rej.Reason, "invalid action") {
		t.Fatalf("err = %v, want a rejected proposal quoting the line", err)
	}
	a, err := p.Next(context.Background(), planner.Input{Goal: "Salva.", Observation: obs(t), Feedback: "rejected: " + rej.Reason})
	if err != nil || a.Kind != action.Done {
		t.Fatalf("after feedback: %+v, %v; want done", a, err)
	}
}

func TestTooManyGarbageLinesGiveUp(t *testing.T) {
	p := start(t, "garbage", func(c *Config) { c.MaxRejections = 2 })
	var err error
	for range 3 {
		_, err = p.Next(context.Background(), planner.Input{Goal: "Salva.", Observation: obs(t)})
	}
	var rej *planner.RejectedError
	if !errors.Is(err, planner.ErrGaveUp) || errors.As(err, &rej) {
		t.Fatalf("third error = %v, want ErrGaveUp", err)
	}
}

// TestRefsArePassedOnUnchanged: the planner does not resolve refs; an unknown or stale one reaches
// the loop as it is, which rejects it under one rule whichever planner proposed it.
func TestRefsArePassedOnUnchanged(t *testing.T) {
	p := &Planner{} // decide uses no process state
	for _, line := range []string{`{"action":"click","ref":"s2:e9"}`, `{"action":"click","ref":"s1:e99"}`, `{"action":"click","ref":"e4"}`} {
		a, rej := p.decide(line, obs(t))
		if rej != nil {
			t.Fatalf("%s: rejected (%v), want it passed on", line, rej)
		}
		want, _ := action.Parse([]byte(line))
		if a != want {
			t.Fatalf("%s: %+v, want %+v unchanged", line, a, want)
		}
	}
}

func TestCrashIsAnError(t *testing.T) {
	p := start(t, "crash", nil)
	_, err := p.Next(context.Background(), planner.Input{Goal: "Salva.", Observation: obs(t)})
	var rej *planner.RejectedError
	if err == nil || errors.As(err, &rej) || !strings.Contains(err.Error(), "exit status 3") || !strings.Contains(err.Error(), "boom: out of ideas") {
		t.Fatalf("err = %v, want the exit status and stderr", err)
	}
	if _, again := p.Next(context.Background(), planner.Input{Goal: "Salva.", Observation: obs(t)}); again == nil {
		t.Fatal("a dead planner answered")
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close after a reported crash: %v", err)
	}
	assertReaped(t, p.PID())
}

func TestTimeoutKillsTheProcessAndItsChildren(t *testing.T) {
	p := start(t, "hang", nil)
	waitFor(t, func() bool { return strings.HasPrefix(p.tail.String(), "child ") }) // the child holds stdout
	ctx, cancel := context.WithTimeout(context.Background(), 200*time.Millisecond)
	defer cancel()
	t0 := time.Now()
	_, err := p.Next(ctx, planner.Input{Goal: "Salva.", Observation: obs(t)})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want DeadlineExceeded", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("Next took %s after a 200ms deadline", d)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	assertReaped(t, p.PID())
	var child int
	if _, err := fmt.Sscanf(p.tail.String(), "child %d", &child); err != nil {
		t.Fatalf("no child pid on stderr: %q", p.tail.String())
	}
	waitGone(t, child)
}

func TestCloseKillsAProcessThatIgnoresEOF(t *testing.T) {
	p := start(t, "hang", func(c *Config) { c.CloseGrace = 100 * time.Millisecond })
	t0 := time.Now()
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if d := time.Since(t0); d > 5*time.Second {
		t.Fatalf("Close took %s", d)
	}
	assertReaped(t, p.PID())
}

func TestExtraLinesAreDroppedAndReported(t *testing.T) {
	p := start(t, "chatty", nil)
	a, err := p.Next(context.Background(), planner.Input{Goal: "Salva.", Observation: obs(t)})
	if err != nil || a.Kind != action.Read {
		t.Fatalf("first = %+v, %v", a, err)
	}
	// The second line of the first answer is waiting; it must not be taken as the second answer.
	waitFor(t, func() bool { return len(p.lines) == 1 })
	a, err = p.Next(context.Background(), planner.Input{Goal: "Salva.", Observation: obs(t)})
	if err != nil || a.Kind != action.Read {
		t.Fatalf("second = %+v, %v; want the answer to the second message (read), not the stale done", a, err)
	}
}

func TestConfigErrors(t *testing.T) {
	for _, c := range []struct {
		cfg   Config
		field string
	}{{Config{}, "Command"}, {Config{Command: []string{"x"}, MaxRejections: -1}, "MaxRejections"}, {Config{Command: []string{"x"}, CloseGrace: -1}, "CloseGrace"}} {
		_, err := Start(context.Background(), c.cfg)
		var ce *ConfigError
		if !errors.As(err, &ce) || ce.Field != c.field {
			t.Errorf("Start(%+v) = %v, want a ConfigError on %s", c.cfg, err, c.field)
		}
	}
	if _, err := Start(context.Background(), Config{Command: []string{"/nonexistent/planner"}}); err == nil || !strings.Contains(err.Error(), "/nonexistent/planner") {
		t.Fatalf("a missing program: %v", err)
	}
}

// assertReaped checks that pid is neither running nor a zombie: Wait collected it.
func assertReaped(t *testing.T, pid int) {
	t.Helper()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("process %d still exists (kill 0: %v): not reaped", pid, err)
	}
}

// waitGone waits until pid (not our child, so reaped by init) has disappeared.
func waitGone(t *testing.T, pid int) {
	t.Helper()
	waitFor(t, func() bool {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		return err != nil || strings.Contains(string(b), ") Z ")
	})
}

// waitFor polls cond for up to 5s.
func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	tick := time.NewTicker(10 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatal("condition not met within 5s")
		case <-tick.C:
		}
	}
}

func TestOverlongLineIsAnError(t *testing.T) {
	p := start(t, "long", func(c *Config) { c.MaxLineBytes = 100 })
	_, err := p.Next(context.Background(), planner.Input{Goal: "Salva.", Observation: obs(t)})
	var rej *planner.RejectedError
	if err == nil || errors.As(err, &rej) || !strings.Contains(err.Error(), "too long") {
		t.Fatalf("err = %v, want a broken stream", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	assertReaped(t, p.PID())
}

// TestAOneMebibyteLineIsRefusedAtTheDefaultLimit: issue 28.5. With the default config a 1 MiB answer
// line breaks the stream with an error naming the limit, and the process is stopped; a config over
// MaxMaxLineBytes is refused.
func TestAOneMebibyteLineIsRefusedAtTheDefaultLimit(t *testing.T) {
	p := start(t, "huge", nil)
	_, err := p.Next(context.Background(), planner.Input{Goal: "Salva.", Observation: obs(t)})
	if err == nil || !strings.Contains(err.Error(), "an answer line is over the limit of 65536 bytes (MaxLineBytes)") {
		t.Fatalf("err = %v, want the line refused at the default limit", err)
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	assertReaped(t, p.PID())
	self, _ := os.Executable()
	_, err = Start(context.Background(), Config{Command: []string{self}, MaxLineBytes: MaxMaxLineBytes + 1})
	var ce *ConfigError
	if !errors.As(err, &ce) || ce.Field != "MaxLineBytes" {
		t.Fatalf("Start with MaxLineBytes over MaxMaxLineBytes: %v", err)
	}
}
