package browser

import (
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
)

// secureOriginSwitch makes Chromium treat the listed plain-HTTP origins as secure contexts.
const secureOriginSwitch = "--unsafely-treat-insecure-origin-as-secure"

// rendererWrapperName is the file name of the renderer wrapper written by rendererWrapperArgs.
const rendererWrapperName = "trapline-renderer.sh"

// isHeadlessShell reports whether exe is a headless-shell build of Chromium (Debian's
// chromium-headless-shell, Playwright's chrome-headless-shell), judged by its file name.
func isHeadlessShell(exe string) bool {
	base := filepath.Base(exe)
	return strings.Contains(base, "headless-shell") || strings.Contains(base, "headless_shell")
}

// rendererWrapperArgs returns what a headless shell needs so that origins are secure contexts in its
// renderers too: a --renderer-cmd-prefix running a wrapper (written into dir) that appends the
// secure-origin switch to every renderer's command line. The headless shell honours the switch in its
// browser process but, unlike chromium, does not pass it on to renderers, so a page on the staging
// portal would see isSecureContext=false and no navigator.serviceWorker (checked by hand with
// --dump-dom: false/false without the wrapper, true/true with it). For any other browser, or no
// origins, it returns nil.
//
// The prefix is "/bin/sh <wrapper>", so the wrapper needs no exec permission (a noexec /tmp works).
// Chromium splits the prefix at spaces, so dir must not contain whitespace; origins must be http(s)
// URLs with a host and no quote or whitespace. Either is an error, never a silently missing switch.
func rendererWrapperArgs(exe string, origins []string, dir string) ([]string, error) {
	if !isHeadlessShell(exe) || len(origins) == 0 {
		return nil, nil
	}
	if err := checkOrigins(origins); err != nil {
		return nil, err
	}
	path := filepath.Join(dir, rendererWrapperName)
	if strings.ContainsAny(path, " \t\n'\"") {
		return nil, fmt.Errorf("browser: renderer wrapper %q: the path must not contain whitespace or quotes (set TMPDIR)", path)
	}
	script := "#!/bin/sh\n# Written by trapline: the headless shell does not pass this switch on to its renderers.\n" +
		"exec \"$@\" '" + secureOriginSwitch + "=" + strings.Join(origins, ",") + "'\n"
	if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
		return nil, fmt.Errorf("browser: write renderer wrapper: %w", err)
	}
	return []string{"--renderer-cmd-prefix=/bin/sh " + path}, nil
}

// checkOrigins refuses origins that are not plain http(s) URLs with a host, or that could break out
// of the wrapper's quoting.
func checkOrigins(origins []string) error {
	for _, o := range origins {
		u, err := url.Parse(o)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || strings.ContainsAny(o, " \t\n'\"\\,") {
			return fmt.Errorf("browser: secure origin %q: want an http(s) URL with a host, without quotes, commas or whitespace", o)
		}
	}
	return nil
}
