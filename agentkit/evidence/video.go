package evidence

import (
	"path/filepath"
	"sort"
)

// Video files in a run folder: the page's screencast in segments, video-001.webm, video-002.webm, ...
// (a new segment after each pause: the login tool stops recording while it types the account), and
// VideoLogFile, one JSON line per segment with its start and stop. The browser writes them; reports
// read them without the browser.
const (
	VideoPattern = "video-*.webm"
	VideoLogFile = "video.jsonl"
)

// Videos lists the video segments in a run folder, in order.
func Videos(dir string) ([]string, error) {
	m, err := filepath.Glob(filepath.Join(dir, VideoPattern))
	if err != nil {
		return nil, err
	}
	sort.Strings(m)
	return m, nil
}
