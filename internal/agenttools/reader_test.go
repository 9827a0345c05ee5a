package agenttools

import (
	"bufio"
	"context"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/internal/agenttools/worldpage"
	"github.com/trapline/trapline/internal/toolmap"
)

// readerPage has what the page reader must get right: hidden elements, a duplicated id, a label, a
// select's options, a link, and text around them.
const readerPage = `<html><body><h1>Pratica 4</h1><p>Stato: aperta</p>
<div style="display:none"><button>Nascosto</button></div>
<div><button id="dup">Salva</button><button id="dup">Salva bozza</button></div>
<form><label for="n">Nome</label><input id="n" type="text"><button type="submit">Elimina pratica</button></form>
<a href="/pratiche">Torna</a><select aria-label="Stato"><option>aperta</option><option>chiusa</option></select>
<span style="visibility:hidden">invisibile</span></body></html>`

// TestReaderScriptInChromium runs trapline's page-reading script in a real Chromium (over DevTools,
// as the world reading does): every element it lists has a selector that finds that element alone,
// hidden ones are left out, and names come from labels and aria-label.
func TestReaderScriptInChromium(t *testing.T) {
	if _, err := os.Stat(browser.DefaultChromium); err != nil {
		t.Skip("no chromium")
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cdp := launchForReader(t, ctx, "data:text/html,"+url.PathEscape(readerPage))
	pages, err := worldpage.Pages(ctx, cdp)
	if err != nil || len(pages) == 0 {
		t.Fatalf("Pages = %v, %v", pages, err)
	}
	for { // the page has loaded
		if s, err := worldpage.Eval(ctx, cdp, pages[0].ID, "document.readyState"); err == nil && s == "complete" {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the page never loaded")
		case <-time.After(50 * time.Millisecond):
		}
	}
	answer, err := worldpage.Eval(ctx, cdp, pages[0].ID, toolmap.ReaderScript(toolmap.Binding{}))
	if err != nil {
		t.Fatal(err)
	}
	st, err := toolmap.ParseState(answer)
	if err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{`- heading "Pratica 4" [level=1]`, `- text: "Stato: aperta"`, `- textbox "Nome"`, `- button "Elimina pratica"`,
		`- combobox "Stato"`, `- option "chiusa"`, `- link "Torna"`, `- /url: /pratiche`, `- button "Salva bozza"`} {
		if !strings.Contains(st.Aria, w) {
			t.Errorf("reading lacks %s:\n%s", w, st.Aria)
		}
	}
	for _, no := range []string{"Nascosto", "invisibile"} {
		if strings.Contains(st.Aria, no) {
			t.Errorf("reading shows the hidden %q:\n%s", no, st.Aria)
		}
	}
	for ref, e := range st.Elements {
		sel, _ := json.Marshal(e.Selector)
		got, err := worldpage.Eval(ctx, cdp, pages[0].ID, "(() => { const all = document.querySelectorAll("+string(sel)+
			"); return all.length + ' ' + (all[0].getAttribute('aria-label') || all[0].innerText || all[0].labels[0].innerText).trim(); })()")
		if err != nil || got != "1 "+e.Name {
			t.Errorf("%s %s: selector %s finds %q (%v), want that element alone", ref, e.Describe(), e.Selector, got, err)
		}
	}
}

var devtoolsListening = regexp.MustCompile(`DevTools listening on ws://([^/]+)/`)

// launchForReader starts a headless Chromium on page, with DevTools on a free loopback port, and
// returns its endpoint; the test's end kills it.
func launchForReader(t *testing.T, ctx context.Context, page string) string {
	t.Helper()
	cmd := exec.CommandContext(ctx, browser.DefaultChromium, "--headless", "--no-sandbox", "--remote-debugging-address=127.0.0.1",
		"--remote-debugging-port=0", "--user-data-dir="+t.TempDir(), "--proxy-server=http://127.0.0.1:9", page)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if m := devtoolsListening.FindStringSubmatch(sc.Text()); m != nil {
			go func() {
				for sc.Scan() { // keep draining Chromium's stderr
				}
			}()
			return "http://" + m[1]
		}
	}
	t.Fatalf("Chromium did not say where DevTools listens: %v", sc.Err())
	return ""
}
