package browser

import (
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"

	playwright "github.com/mxschmitt/playwright-go"

	"github.com/trapline/trapline/agentkit/evidence"
	"github.com/trapline/trapline/agentkit/policy"
	"github.com/trapline/trapline/internal/userfile"
)

// RuleStorageStateStripped is logged for each part of a storage-state file a run does not start with:
// a cookie of a host the policy does not allow, or an origin's local storage (page state of an earlier
// session, not a login). The session boundary (seed 002): a run's context holds only the test
// account's state.
const RuleStorageStateStripped = policy.RuleStorageStateStripped

// MaxStorageStateBytes bounds a storage-state file: a login's cookies and local storage, not a
// browser profile. A larger one is refused before it is read, naming the file, its size and the limit.
const MaxStorageStateBytes = 4 << 20

// ReadStorageState reads a Playwright storage-state file (cookies and origins' local storage, as
// SaveStorageState or `playwright codegen --save-storage` write it). Errors name the file. The file is a
// secret: nothing of it is ever logged.
func ReadStorageState(path string) (*playwright.OptionalStorageState, error) {
	data, err := userfile.ReadFile("storage state", path, MaxStorageStateBytes)
	if errors.Is(err, userfile.ErrTooLarge) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("storage state %s: %w", path, err)
	}
	var st playwright.OptionalStorageState
	if err := json.Unmarshal(data, &st); err != nil {
		return nil, fmt.Errorf("storage state %s: not a Playwright storage-state file: %w", path, err)
	}
	for i, c := range st.Cookies {
		if c.Name == "" || (c.URL == nil && (c.Domain == nil || c.Path == nil)) {
			return nil, fmt.Errorf("storage state %s: cookies[%d]: a cookie needs a name and a url or a domain and a path", path, i)
		}
	}
	return &st, nil
}

// StorageStateSecrets returns every value of a storage-state file (cookie values, local-storage
// values), for the run's redactor: none of them may reach the model, the logs, the trace or the report.
func StorageStateSecrets(path string) ([]string, error) {
	st, err := ReadStorageState(path)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, c := range st.Cookies {
		if len(c.Value) >= 4 { // shorter values would redact ordinary words
			out = append(out, c.Value)
		}
	}
	for _, o := range st.Origins {
		for _, kv := range o.LocalStorage {
			if len(kv.Value) >= 4 {
				out = append(out, kv.Value)
			}
		}
	}
	return out, nil
}

// boundStorageState keeps of st what a run may start with: the cookies of hosts the policy allows
// (navigation.allow or static_assets) and, unless keepOrigins (UNSAFE, control arms only), only the
// local storage of the origins on keepHosts (the user's own app). It returns what it dropped,
// described by name only.
func boundStorageState(st *playwright.OptionalStorageState, pol *policy.Policy, keepOrigins bool, keepHosts []string) (*playwright.OptionalStorageState, []string) {
	out := &playwright.OptionalStorageState{}
	var dropped []string
	for _, c := range st.Cookies {
		host := ""
		switch {
		case c.Domain != nil:
			host = strings.TrimPrefix(*c.Domain, ".")
		case c.URL != nil:
			host = hostOf(*c.URL)
		}
		if pol.DecideHost(host).Allow {
			out.Cookies = append(out.Cookies, c)
			continue
		}
		dropped = append(dropped, fmt.Sprintf("cookie %q of host %q, which the policy does not allow", c.Name, host))
	}
	if keepOrigins {
		out.Origins = st.Origins
	} else {
		for _, o := range st.Origins {
			if h := hostOf(o.Origin); slices.ContainsFunc(keepHosts, func(k string) bool { return strings.EqualFold(k, stripPort(h)) }) {
				out.Origins = append(out.Origins, o)
				continue
			}
			if len(o.LocalStorage) > 0 {
				dropped = append(dropped, fmt.Sprintf("%d local-storage entries of %s: an earlier session's page state, not a login", len(o.LocalStorage), o.Origin))
			}
		}
	}
	return out, dropped
}

// hostOf is the host of a URL, "" when it has none.
func hostOf(raw string) string {
	rest, ok := strings.CutPrefix(raw, "http://")
	if !ok {
		rest, _ = strings.CutPrefix(raw, "https://")
	}
	if i := strings.IndexAny(rest, "/?#"); i >= 0 {
		rest = rest[:i]
	}
	return rest
}

// stripPort is host without its port, if any.
func stripPort(host string) string {
	if h, _, err := net.SplitHostPort(host); err == nil {
		return h
	}
	return host
}

// loadStorageState reads opts.StorageStatePath, bounds it to the policy and logs what it dropped.
func loadStorageState(opts SessionOptions) (*playwright.OptionalStorageState, error) {
	st, err := ReadStorageState(opts.StorageStatePath)
	if err != nil {
		return nil, fmt.Errorf("browser: %w", err)
	}
	bounded, dropped := boundStorageState(st, opts.Policy, opts.KeepStorageOrigins, opts.KeepStorageHosts)
	for _, d := range dropped {
		opts.Recorder.Violation(evidence.Violation{Rule: RuleStorageStateStripped,
			Reason: "the run starts without " + d, Taken: evidence.TakenStripped})
	}
	return bounded, nil
}
