package browser

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/trapline/trapline/proxy"
)

// extensionTargetTypes are the DevTools target types an extension's own code runs in.
var extensionTargetTypes = map[string]bool{"service_worker": true, "background_page": true}

// ExtensionIDs returns the ids of the extensions whose code runs in the browser now: the
// chrome-extension:// hosts of its service-worker and background-page targets, read from the
// DevTools endpoint's /json/list (directly, not through the world's proxy). An extension an agent
// loaded over CDP (Extensions.loadUnpacked) is listed once its worker runs.
func (b *CDPBrowser) ExtensionIDs(ctx context.Context) ([]string, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, b.url+"/json/list", nil)
	if err != nil {
		return nil, fmt.Errorf("browser: list targets: %w", err)
	}
	c := &http.Client{Transport: &http.Transport{Proxy: nil}}
	resp, err := c.Do(req)
	if err != nil {
		return nil, fmt.Errorf("browser: list targets: %w", err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("browser: list targets: %s answered %s", b.url+"/json/list", resp.Status)
	}
	var targets []struct{ Type, URL string }
	if err := json.NewDecoder(io.LimitReader(resp.Body, 8<<20)).Decode(&targets); err != nil {
		return nil, fmt.Errorf("browser: list targets: %w", err)
	}
	var ids []string
	for _, t := range targets {
		u, err := url.Parse(t.URL)
		if err != nil || u.Scheme != "chrome-extension" || !extensionTargetTypes[t.Type] {
			continue
		}
		if id := strings.ToLower(u.Host); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// DevToolsDoor is the door the world's proxy needs to let this browser's extensions reach its
// DevTools endpoint (proxy.Proxy.AdmitDevTools).
func (b *CDPBrowser) DevToolsDoor() proxy.DevToolsDoor {
	return proxy.DevToolsDoor{HostPort: strings.TrimPrefix(b.url, "http://"), ExtensionIDs: b.ExtensionIDs}
}
