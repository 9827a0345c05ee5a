package harness

import (
	"fmt"

	"github.com/trapline/trapline/agentkit/browser"
	"github.com/trapline/trapline/results"
)

// Video modes of Options.Video.
const (
	// VideoOff records no video (the default, "").
	VideoOff = "off"
	// VideoFailing records every run and keeps the video of the runs whose verdict fails.
	VideoFailing = "failing"
	// VideoAll records and keeps every run's video.
	VideoAll = "all"
)

// ParseVideo checks a --video / TRAPLINE_VIDEO value: off, failing or all ("" is off).
func ParseVideo(v string) (string, error) {
	switch v {
	case "", VideoOff:
		return VideoOff, nil
	case VideoFailing, VideoAll:
		return v, nil
	}
	return "", fmt.Errorf("video %q: want off, failing or all", v)
}

func recordsVideo(mode string) bool { return mode == VideoFailing || mode == VideoAll }

// keepVideo applies the video mode once the verdict is known: under VideoFailing a passing run's
// video is removed.
func keepVideo(mode string, res *results.Result, dir string) error {
	if mode != VideoFailing {
		return nil
	}
	if pass, _ := res.Passed(); pass {
		return browser.RemoveVideos(dir)
	}
	return nil
}
