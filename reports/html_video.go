package reports

import "github.com/trapline/trapline/agentkit/browser"

// videoPaths lists an arm's video segments (--video) relative to the working directory, as the report
// names the trace: by path, so the page stays self-contained.
func videoPaths(dir string) []string {
	vs, err := browser.Videos(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, v := range vs {
		out = append(out, relative(v))
	}
	return out
}
