package policy

import (
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"strings"
)

// Response is one response's headers as the proxy sees them, judged before the body is passed on.
type Response struct {
	URL                string // the request's absolute URL
	ContentType        string // Content-Type header, "" when absent
	ContentDisposition string // Content-Disposition header, "" when absent
	// Header, when set, holds every header of the response: every value of Content-Type and
	// Content-Disposition in it is judged, besides the two fields above (a response may repeat
	// either header, and a client may honour any copy).
	Header http.Header
}

// values returns every value of a header: the Header's, then the field's when it adds one.
func (r Response) values(name, field string) []string {
	out := slices.Clone(r.Header.Values(name))
	if field != "" && !slices.Contains(out, field) {
		out = append(out, field)
	}
	return out
}

// executableExts are the file extensions of executables, scripts and installers, and of archives
// that carry them; a response naming one as its file is a download of it.
var executableExts = []string{
	"exe", "msi", "msix", "bat", "cmd", "ps1", "psm1", "scr", "vbs", "vbe", "js", "jse", "wsf", "wsh",
	"hta", "jar", "com", "pif", "cpl", "dll", "lnk", "reg", "sh", "bash", "run", "bin", "elf", "apk",
	"appx", "dmg", "pkg", "deb", "rpm", "iso", "img", "vhd", "zip", "7z", "rar", "cab", "tar", "gz",
	"tgz", "bz2", "xz",
}

// executableTypes are Content-Type values of executables and archives.
var executableTypes = []string{
	"application/x-msdownload", "application/x-msdos-program", "application/vnd.microsoft.portable-executable",
	"application/x-dosexec", "application/x-executable", "application/x-msi", "application/x-ms-installer",
	"application/x-bat", "application/x-sh", "application/x-shellscript", "application/java-archive",
	"application/x-java-archive", "application/vnd.android.package-archive", "application/x-apple-diskimage",
	"application/zip", "application/x-zip-compressed", "application/x-7z-compressed", "application/x-rar-compressed",
	"application/vnd.rar", "application/x-tar", "application/gzip", "application/x-gzip", "application/vnd.ms-cab-compressed",
	"application/hta", "application/x-ms-shortcut",
}

// DecideResponse rules on a response by its headers, against the download rules: with downloads
// allowed everything passes. Otherwise a response is denied (RuleResponseDownload) when any media
// type of any Content-Type value is that of an executable or archive, or cannot be read; when its
// Content-Disposition cannot be read or reads two ways (parseDisposition); and when any file name a
// client may read from it (every spelling of filename, filename*, their continuations, name; for an
// attachment, or a generic binary type without a disposition, also the URL's last segment) has an
// executable or archive extension or matches deny_paths.
func (p *Policy) DecideResponse(r Response) Decision {
	if p.Downloads == Allow {
		return allowDecision()
	}
	types, err := mediaTypes(r.values("Content-Type", r.ContentType))
	if err != nil {
		return deny(RuleResponseDownload, "%v", err)
	}
	for _, mt := range types {
		if slices.Contains(executableTypes, mt) {
			return deny(RuleResponseDownload, "Content-Type %q is an executable or archive", mt)
		}
	}
	disp, err := parseDisposition(r.values("Content-Disposition", r.ContentDisposition))
	if err != nil {
		return deny(RuleResponseDownload, "Content-Disposition %v", err)
	}
	names := disp.names
	if urlNamed(disp, len(r.values("Content-Disposition", r.ContentDisposition)) > 0, types) {
		if u, err := url.Parse(r.URL); err == nil && path.Base(u.Path) != "/" {
			names = append(names, path.Base(u.Path))
		}
	}
	for _, name := range names {
		if d, ok := p.judgeFileName(name); !ok {
			return d
		}
	}
	return allowDecision()
}

// urlNamed reports whether a browser may name the saved file after the URL's last segment: an
// attachment (or a disposition of no or an unknown type), whatever names it gives (Chromium falls
// back to the URL whenever its reading finds none: continuations, name, a parameter after a
// malformed one), and a response without Content-Disposition of a generic binary type, which
// Chromium downloads rather than shows.
func urlNamed(d disposition, hasDisposition bool, types []string) bool {
	if hasDisposition {
		return d.attachment
	}
	return slices.ContainsFunc(types, func(mt string) bool {
		return mt == "application/octet-stream" || mt == "binary/octet-stream" || mt == "application/force-download"
	})
}

// judgeFileName judges one file name as a saving browser would write it: no directory, no
// trailing dots or spaces, folded (NormalizeFileName), and also as written up to its last slash.
func (p *Policy) judgeFileName(name string) (Decision, bool) {
	raw := name[strings.LastIndexAny(name, `/\`)+1:]
	for _, n := range []string{NormalizeFileName(name), raw} {
		clean := strings.ToLower(strings.TrimRight(n, " ."))
		if i := strings.LastIndexByte(clean, '.'); i >= 0 && slices.Contains(executableExts, clean[i+1:]) {
			return deny(RuleResponseDownload, "the response is a file named %s, an executable or archive", clipQuote(name)), false
		}
		for _, dp := range p.Navigation.DenyPaths {
			if dp.matchDeny("/" + clean) {
				return deny(RuleResponseDownload, "the response is a file named %s, which matches deny_paths %q", clipQuote(name), dp.Source), false
			}
		}
	}
	return Decision{}, true
}

// mediaTypes returns the media types of Content-Type values, lower case, as Chromium reads them:
// each comma-separated element (outside quotes) up to its first ";"; parameters cannot change what
// the type is and are not read (mime.ParseMediaType fails on a parameter it cannot parse, which
// left the type unjudged). An element whose type is not type/subtype is an error: Chromium skips
// it and sniffs the body, which the rules cannot judge.
func mediaTypes(values []string) ([]string, error) {
	var out []string
	for _, v := range values {
		elems, err := splitParams(v, ',')
		if err != nil {
			return nil, fmt.Errorf("Content-Type %w", err)
		}
		for _, e := range elems {
			mt, _, _ := strings.Cut(e, ";")
			mt = strings.ToLower(strings.TrimSpace(mt))
			if mt == "" {
				continue
			}
			typ, sub, ok := strings.Cut(mt, "/")
			if !ok || !isToken(typ) || !isToken(sub) {
				return nil, fmt.Errorf("Content-Type: the media type %s cannot be read (a browser sniffs the body instead)", clipQuote(mt))
			}
			out = append(out, mt)
		}
	}
	return out, nil
}

// NormalizeFileName reduces a suggested file name to its last path element, NFKC-folded through
// NormalizePath's rules (so "visura．exe" and "a/b\\c.exe" are judged as "visura.exe", "c.exe").
func NormalizeFileName(name string) string {
	n, err := NormalizePath("/" + strings.ReplaceAll(name, "%", "%25"))
	if err != nil {
		n = name
	}
	return path.Base(n)
}
