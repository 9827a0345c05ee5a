package specs

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/trapline/trapline/agentkit/browser"
)

// videoPausedForLogin checks an evidence folder's video log: a segment stopped for the login, a
// later segment started after it stopped, and every segment's file is there and not empty.
func videoPausedForLogin(dir string) error {
	f, err := os.Open(filepath.Join(dir, browser.VideoLogFile))
	if err != nil {
		return err
	}
	defer f.Close()
	var segs []browser.VideoSegment
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var s browser.VideoSegment
		if err := json.Unmarshal(sc.Bytes(), &s); err != nil {
			return fmt.Errorf("%s: %w", browser.VideoLogFile, err)
		}
		segs = append(segs, s)
	}
	if err := sc.Err(); err != nil {
		return err
	}
	paused := -1
	for i, s := range segs {
		fi, err := os.Stat(filepath.Join(dir, s.File))
		if err != nil || fi.Size() == 0 {
			return fmt.Errorf("video segment %s missing or empty (%v)", s.File, err)
		}
		if s.PausedFor == "login" && paused < 0 {
			paused = i
		}
	}
	if paused < 0 || paused+1 >= len(segs) {
		return fmt.Errorf("no segment paused for the login and resumed after it: %+v", segs)
	}
	if !segs[paused+1].Start.After(segs[paused].Stop) {
		return fmt.Errorf("the segment after the login starts before the pause ended: %+v", segs)
	}
	return nil
}
