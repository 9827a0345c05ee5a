package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/reports"
)

// videoLink is how report.html links an arm's video segment (reports/report.html.tmpl).
var videoLink = regexp.MustCompile(`<a class="video" href="([^"]+)">`)

// TestVideoFailingIsPlayable: `trapline run --video failing` with a deliberately broken policy (the
// reference policy with its deny words emptied, policies/testdata) makes decoy-delete's guarded arm
// fail; its video is linked from report.html, and every linked file is a video ffprobe reads and
// ffmpeg decodes to the last frame without an error, with frames and a duration above zero. The
// control arm passes (the trap fires under the permissive policy), so under "failing" it keeps no video.
func TestVideoFailingIsPlayable(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: runs a trap in Chromium with video")
	}
	if _, err := os.Stat(browser.DefaultChromium); err != nil {
		t.Skip("no chromium")
	}
	for _, tool := range []string{"ffmpeg", "ffprobe"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Skipf("no %s (make setup installs Debian's ffmpeg): %v", tool, err)
		}
	}
	if _, err := browser.LinkFFmpeg(os.Getenv("PLAYWRIGHT_BROWSERS_PATH")); err != nil {
		t.Fatalf("link ffmpeg for Playwright: %v", err)
	}
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	code := run([]string{"run", "--traps", "decoy-delete", "--policy", filepath.Join("..", "..", "policies", "testdata", "broken-no-deny-words.yml"),
		"--video", "failing", "--out", out}, &stdout, &stderr)
	if code != exitFailed {
		t.Fatalf("exit %d, want %d (the broken policy's guarded arm fails)\n%s\n%s", code, exitFailed, stdout.String(), stderr.String())
	}
	s, err := reports.ReadJSON(filepath.Join(out, "summary.json"))
	if err != nil {
		t.Fatal(err)
	}
	verdicts := map[string]string{}
	for _, e := range s.Entries {
		verdicts[e.Arm] = e.Status
	}
	if verdicts["guarded"] != reports.StatusFail || verdicts["control"] != reports.StatusPass {
		t.Fatalf("verdicts %v, want guarded fail and control pass", verdicts)
	}
	page, err := os.ReadFile(filepath.Join(out, "report.html"))
	if err != nil {
		t.Fatal(err)
	}
	links := videoLink.FindAllStringSubmatch(string(page), -1)
	if len(links) == 0 {
		t.Fatalf("report.html links no video (entries %+v)", s.Entries)
	}
	for _, m := range links {
		href := m[1]
		if strings.Contains(href, ":") || filepath.IsAbs(href) {
			t.Errorf("video link %q is not relative to the report's folder", href)
			continue
		}
		f := filepath.Join(out, filepath.FromSlash(href))
		if !strings.Contains(filepath.ToSlash(f), "/guarded/") {
			t.Errorf("video %s linked outside the failed guarded arm", href)
		}
		frames, seconds, err := probeVideo(f)
		if err != nil {
			t.Errorf("video %s (linked as %q): %v", f, href, err)
			continue
		}
		t.Logf("%s: %d frames, %.2f s", href, frames, seconds)
	}
	// "failing" removed the passing control arm's video.
	if vs, _ := browser.Videos(filepath.Join(out, "evidence", "decoy-delete", "control")); len(vs) != 0 {
		t.Errorf("the passing control arm kept its video under --video failing: %v", vs)
	}
}

// probeVideo decodes every frame of f with ffmpeg (any decode error fails) and reads with ffprobe the
// video stream's codec, the frames decoded and the duration; it fails on no frame or no duration.
func probeVideo(f string) (frames int, seconds float64, err error) {
	var errb bytes.Buffer
	dec := exec.Command("ffmpeg", "-nostdin", "-v", "error", "-xerror", "-i", f, "-map", "0:v:0", "-f", "null", "-")
	dec.Stderr = &errb
	if err := dec.Run(); err != nil || strings.TrimSpace(errb.String()) != "" {
		return 0, 0, fmt.Errorf("ffmpeg decode: %v: %s", err, errb.String())
	}
	probe := exec.Command("ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
		"-show_entries", "stream=codec_name,nb_read_frames:format=duration:frame=best_effort_timestamp_time", "-of", "json", f)
	b, err := probe.Output()
	if err != nil {
		return 0, 0, fmt.Errorf("ffprobe: %w", err)
	}
	var r struct {
		Streams []struct {
			Codec  string `json:"codec_name"`
			Frames string `json:"nb_read_frames"`
		} `json:"streams"`
		Format struct {
			Duration string `json:"duration"`
		} `json:"format"`
		Frames []struct {
			Time string `json:"best_effort_timestamp_time"`
		} `json:"frames"`
	}
	if err := json.Unmarshal(b, &r); err != nil {
		return 0, 0, fmt.Errorf("ffprobe output: %w", err)
	}
	if len(r.Streams) != 1 {
		return 0, 0, fmt.Errorf("ffprobe: %d video streams, want 1", len(r.Streams))
	}
	frames, _ = strconv.Atoi(r.Streams[0].Frames)
	if frames == 0 {
		return 0, 0, fmt.Errorf("ffprobe: no frame decoded (codec %s)", r.Streams[0].Codec)
	}
	// The container's duration, or (a recording cut short may not write one) the last frame's time.
	seconds, _ = strconv.ParseFloat(r.Format.Duration, 64)
	if seconds <= 0 && len(r.Frames) > 0 {
		seconds, _ = strconv.ParseFloat(r.Frames[len(r.Frames)-1].Time, 64)
	}
	if seconds <= 0 {
		return frames, 0, fmt.Errorf("ffprobe: duration %q, last frame time unknown: not playable", r.Format.Duration)
	}
	return frames, seconds, nil
}

// TestProbeVideoRejectsWhatDoesNotPlay: the check above is not one that cannot fail: a file that is
// not a video, and an empty one, are refused.
func TestProbeVideoRejectsWhatDoesNotPlay(t *testing.T) {
	if _, err := exec.LookPath("ffprobe"); err != nil {
		t.Skipf("no ffprobe (make setup installs Debian's ffmpeg): %v", err)
	}
	dir := t.TempDir()
	for name, body := range map[string]string{"garbage.webm": "not a video\n", "empty.webm": ""} {
		f := writeFile(t, filepath.Join(dir, name), body)
		if _, _, err := probeVideo(f); err == nil {
			t.Errorf("%s: accepted as playable", name)
		}
	}
}
