package reports

import (
	"net/url"
	"path/filepath"

	"github.com/trapline/trapline/agentkit/evidence"
)

// videoView is one video segment in the report: its path (as the report names the trace) and a link
// to the file, relative to the page's folder so the link still opens when the reports folder is
// moved or downloaded as a CI artifact (absolute when no relative path exists).
type videoView struct {
	Path string
	Href string
}

// videoViews lists an arm's video segments (--video). pageDir is the folder the page is written to
// (HTMLOptions.ReportDir, else SummaryDir); empty: the working directory.
func videoViews(dir, pageDir string) []videoView {
	vs, err := evidence.Videos(dir)
	if err != nil {
		return nil
	}
	var out []videoView
	for _, v := range vs {
		out = append(out, videoView{Path: relative(v), Href: fileHref(v, pageDir)})
	}
	return out
}

// fileHref is the link from a page in pageDir to file p: a relative URL path when one exists, else a
// file: URL of the absolute path.
func fileHref(p, pageDir string) string {
	abs, err := filepath.Abs(p)
	if err != nil {
		return (&url.URL{Path: filepath.ToSlash(p)}).String()
	}
	base, err := filepath.Abs(pageDir)
	if err == nil {
		if r, err := filepath.Rel(base, abs); err == nil {
			return (&url.URL{Path: filepath.ToSlash(r)}).String()
		}
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}
