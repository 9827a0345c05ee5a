package policy

import (
	"mime"
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
// allowed everything passes; otherwise a Content-Disposition that does not parse is denied (a
// browser may still save the body, under a name the rules cannot read), and so is a response whose
// file name (Content-Disposition filename or filename*, or for an attachment without one the URL's
// last segment) has an executable or archive extension or matches deny_paths, or whose Content-Type
// is that of an executable or archive. Every denial is RuleResponseDownload.
func (p *Policy) DecideResponse(r Response) Decision {
	if p.Downloads == Allow {
		return allowDecision()
	}
	if mt, _, err := mime.ParseMediaType(r.ContentType); err == nil && slices.Contains(executableTypes, mt) {
		return deny(RuleResponseDownload, "Content-Type %q is an executable or archive", mt)
	}
	if strings.TrimSpace(r.ContentDisposition) == "" {
		return allowDecision()
	}
	disp, params, err := mime.ParseMediaType(r.ContentDisposition)
	if err != nil {
		return deny(RuleResponseDownload, "Content-Disposition %q is malformed (%v): the file it names cannot be judged", r.ContentDisposition, err)
	}
	name := params["filename"]
	if name == "" && disp == "attachment" {
		if u, err := url.Parse(r.URL); err == nil {
			name = path.Base(u.Path)
		}
	}
	if name == "" {
		return allowDecision()
	}
	// Judge the name as a saving browser would: no directory, no trailing dots or spaces, folded.
	clean := strings.ToLower(strings.TrimRight(NormalizeFileName(name), " ."))
	if i := strings.LastIndexByte(clean, '.'); i >= 0 && slices.Contains(executableExts, clean[i+1:]) {
		return deny(RuleResponseDownload, "the response is a file named %q, an executable or archive", name)
	}
	for _, dp := range p.Navigation.DenyPaths {
		if dp.matchDeny("/" + clean) {
			return deny(RuleResponseDownload, "the response is a file named %q, which matches deny_paths %q", name, dp.Source)
		}
	}
	return allowDecision()
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
