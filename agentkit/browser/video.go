package browser

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	playwright "github.com/mxschmitt/playwright-go"
	"github.com/trapline/trapline/agentkit/evidence"
)

// Video files in a run folder (their home is package evidence, which reports read without the browser).
const (
	VideoPattern = evidence.VideoPattern
	VideoLogFile = evidence.VideoLogFile
)

// VideoSegment is one line of video.jsonl.
type VideoSegment struct {
	File  string    `json:"file"`
	Start time.Time `json:"start"`
	Stop  time.Time `json:"stop"`
	// PausedFor says why recording stopped after this segment ("login"), "" at the end of the run.
	PausedFor string `json:"paused_for,omitempty"`
}

// videoState is a session's recording: the segment being written, and those written.
type videoState struct {
	seq     int
	current string
	start   time.Time
	// sc is the screencast being recorded: playwright-go's Page.Screencast returns a new object on
	// each call, and only the one that started a recording saves it when stopped.
	sc playwright.Screencast
}

// startVideo starts a new segment of the page's screencast (Playwright's Screencast with a path;
// it needs ffmpeg, which `make setup` links where Playwright looks for it).
func (s *Session) startVideo() error {
	s.video.seq++
	name := fmt.Sprintf("video-%03d.webm", s.video.seq)
	sc, err := s.page.Screencast()
	if err != nil {
		return fmt.Errorf("browser: screencast: %w", err)
	}
	if err := sc.Start(playwright.ScreencastStartOptions{Path: playwright.String(s.opts.Recorder.Path(name)),
		Size: &playwright.Size{Width: 800, Height: 500}}); err != nil {
		return fmt.Errorf("browser: start video %s: %w", name, err)
	}
	s.video.current, s.video.start, s.video.sc = name, time.Now(), sc
	return nil
}

// stopVideo ends the current segment (saving its file) and logs it; why is the pause's reason, ""
// at the end of the run. It does nothing when no segment is being recorded.
func (s *Session) stopVideo(why string) error {
	if s.video.current == "" {
		return nil
	}
	err := s.video.sc.Stop()
	seg := VideoSegment{File: s.video.current, Start: s.video.start, Stop: time.Now(), PausedFor: why}
	s.video.current, s.video.sc = "", nil
	if err == nil {
		if _, serr := os.Stat(s.opts.Recorder.Path(seg.File)); serr != nil {
			err = fmt.Errorf("no file written: %w", serr)
		} else {
			err = os.Chmod(s.opts.Recorder.Path(seg.File), evidence.FileMode) // ffmpeg writes it 0644
		}
	}
	if err != nil {
		return fmt.Errorf("browser: stop video %s: %w", seg.File, err)
	}
	b, err := json.Marshal(seg)
	if err != nil {
		return fmt.Errorf("browser: video log: %w", err)
	}
	f, err := os.OpenFile(s.opts.Recorder.Path(VideoLogFile), os.O_APPEND|os.O_CREATE|os.O_WRONLY, evidence.FileMode)
	if err != nil {
		return fmt.Errorf("browser: video log: %w", err)
	}
	_, werr := f.Write(append(b, '\n'))
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return fmt.Errorf("browser: video log: %w", werr)
	}
	return nil
}

// Videos lists the video segments in a run folder, in order (evidence.Videos).
func Videos(dir string) ([]string, error) { return evidence.Videos(dir) }

// RemoveVideos deletes a run folder's video segments and their log (the --video failing mode, for an
// arm that passed).
func RemoveVideos(dir string) error {
	vs, err := Videos(dir)
	if err != nil {
		return err
	}
	for _, v := range append(vs, filepath.Join(dir, VideoLogFile)) {
		if err := os.Remove(v); err != nil && !os.IsNotExist(err) {
			return fmt.Errorf("browser: remove %s: %w", v, err)
		}
	}
	return nil
}

// LinkFFmpeg makes Playwright's video recording use the system ffmpeg (Debian's `ffmpeg`): Playwright
// looks for <browsersPath>/ffmpeg-<revision>/ffmpeg-linux, and its own download is not reachable
// here. browsersPath is where the Playwright driver keeps its browsers, which it reads from
// PLAYWRIGHT_BROWSERS_PATH: the caller passes that variable's value (os.Getenv), "" for Playwright's
// default, ~/.cache/ms-playwright. The revision is read from the driver's browsers.json. Idempotent:
// an existing link to the same ffmpeg is kept. It returns the link's path.
func LinkFFmpeg(browsersPath string) (string, error) {
	ffmpeg, err := exec.LookPath("ffmpeg")
	if err != nil {
		return "", fmt.Errorf("browser: video needs ffmpeg (apt-get install ffmpeg): %w", err)
	}
	pkg, err := PlaywrightCoreDir()
	if err != nil {
		return "", err
	}
	b, err := os.ReadFile(filepath.Join(pkg, "browsers.json"))
	if err != nil {
		return "", fmt.Errorf("browser: %w", err)
	}
	var manifest struct {
		Browsers []struct {
			Name, Revision string
		} `json:"browsers"`
	}
	if err := json.Unmarshal(b, &manifest); err != nil {
		return "", fmt.Errorf("browser: %s: %w", filepath.Join(pkg, "browsers.json"), err)
	}
	rev := ""
	for _, br := range manifest.Browsers {
		if br.Name == "ffmpeg" {
			rev = br.Revision
		}
	}
	if rev == "" {
		return "", fmt.Errorf("browser: %s names no ffmpeg revision", filepath.Join(pkg, "browsers.json"))
	}
	root := browsersPath
	if root == "" {
		cache, err := os.UserCacheDir()
		if err != nil {
			return "", fmt.Errorf("browser: cache folder: %w", err)
		}
		root = filepath.Join(cache, "ms-playwright")
	}
	link := filepath.Join(root, "ffmpeg-"+rev, "ffmpeg-linux")
	if cur, err := os.Readlink(link); err == nil && cur == ffmpeg {
		return link, nil
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return "", fmt.Errorf("browser: %w", err)
	}
	_ = os.Remove(link)
	if err := os.Symlink(ffmpeg, link); err != nil {
		return "", fmt.Errorf("browser: link %s: %w", link, err)
	}
	return link, nil
}
