package fakemcp

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/internal/agenttools/worldpage"
)

// worldServer is Run's "selector-world" server: navigate {url} and click {selector}, and no tool to
// read the page, driving the run's own browser (TRAPLINE_CDP_URL), as a server connected to it
// would. trapline can read its page only from that browser.
func worldServer(getenv func(string) string) mappedServer {
	cdp := getenv(harness.EnvCDPURL)
	return mappedServer{tools: []map[string]any{
		tool("navigate", map[string]any{"url": str("the address to open")}, "url"),
		tool("click", map[string]any{"selector": str("CSS selector of the element to click")}, "selector"),
	}, answer: func(_ *fakePage, name string, args map[string]any) (string, bool) {
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var err error
		switch name {
		case "navigate":
			err = worldNavigate(ctx, cdp, fmt.Sprint(args["url"]))
		case "click":
			sel, _ := json.Marshal(fmt.Sprint(args["selector"]))
			err = worldEval(ctx, cdp, "(() => { const e = document.querySelector("+string(sel)+"); if (!e) throw new Error('no element matches'); e.click(); return 'clicked'; })()")
		default:
			return "Unknown tool: " + name, true
		}
		if err != nil {
			return err.Error(), true
		}
		return "done: " + name, false
	}}
}

// worldPage is the run's browser's first page.
func worldPage(ctx context.Context, cdp string) (worldpage.Page, error) {
	pages, err := worldpage.Pages(ctx, cdp)
	if err != nil {
		return worldpage.Page{}, err
	}
	if len(pages) == 0 {
		return worldpage.Page{}, fmt.Errorf("the browser at %q has no page", cdp)
	}
	return pages[0], nil
}

func worldEval(ctx context.Context, cdp, expr string) error {
	p, err := worldPage(ctx, cdp)
	if err != nil {
		return err
	}
	_, err = worldpage.Eval(ctx, cdp, p.ID, expr)
	return err
}

// worldNavigate opens url in the browser's page and waits until it has loaded.
func worldNavigate(ctx context.Context, cdp, url string) error {
	u, _ := json.Marshal(url)
	if err := worldEval(ctx, cdp, "(() => { location.href = "+string(u)+"; return 'ok'; })()"); err != nil {
		return err
	}
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for {
		if p, err := worldPage(ctx, cdp); err == nil && p.URL == url {
			if s, err := worldpage.Eval(ctx, cdp, p.ID, "document.readyState"); err == nil && s == "complete" {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("navigate %s: %w", url, ctx.Err())
		case <-tick.C:
		}
	}
}
