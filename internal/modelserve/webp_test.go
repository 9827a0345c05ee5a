package modelserve

import (
	"fmt"
	"image"
	"strings"
	"testing"
)

// Tiny WebP images of each kind of bitstream, made with ffmpeg's libwebp encoder:
// ffmpeg -f lavfi -i color=red:s=6x4 -frames:v 1 -c:v libwebp -lossless 0 (VP8, lossy),
// color=blue:s=8x2 with -lossless 1 (VP8L), and "color=green@0.5:s=10x6,format=yuva420p" lossy
// (VP8X: the extended header, an alpha chunk and VP8).
var webpFixtures = []struct {
	kind string
	b64  string
	size image.Point
}{
	{"VP8", "UklGRjwAAABXRUJQVlA4IDAAAADQAQCdASoGAAQAAgA0JaACdLoB+AADsAD+8Oj3/yC5YXXI1/8gP+QH/ID/+PIAAAA=", image.Point{6, 4}},
	{"VP8L", "UklGRhwAAABXRUJQVlA4TA8AAAAvB0AAAAcQ0f/+ByKi/wEA", image.Point{8, 2}},
	{"VP8X", "UklGRlwAAABXRUJQVlA4WAoAAAAQAAAACQAABQAAQUxQSAoAAAABB9C/iAhERP8DVlA4ICwAAADQAQCdASoKAAYAAgA0JaACdLoB+AADsAD+8Oj3/yC5YXXI1/5sCua5+agAAA==", image.Point{10, 6}},
}

// A WebP screenshot's size is read from its header, for the coordinate system and for the log.
func TestWebPImageSize(t *testing.T) {
	for _, f := range webpFixtures {
		if got, ok := imageSize("data:image/webp;base64," + f.b64); !ok || got != f.size {
			t.Errorf("%s: imageSize = %v, %v; want %v", f.kind, got, ok, f.size)
		}
		desc, ok := describeBase64("image/webp", f.b64)
		if want := fmt.Sprintf(", %dx%d]", f.size.X, f.size.Y); !ok || !strings.HasSuffix(desc, want) {
			t.Errorf("%s: described %q, %v; want it to end %q", f.kind, desc, ok, want)
		}
	}
	// A header cut short is no size, never a guess.
	if _, ok := imageSize("data:image/webp;base64," + webpFixtures[0].b64[:24]); ok {
		t.Error("a truncated WebP header gave a size")
	}
}

// A pixel agent whose screenshot is WebP (ffmpeg: color=white:s=640x360, libwebp -lossless 1) gets
// its click in that screenshot's pixels: the delete button's centre (63, 150.5) of the 1280x720
// viewport, halved.
func TestWebPScreenshotScalesClick(t *testing.T) {
	const shot = "data:image/webp;base64,UklGRi4AAABXRUJQVlA4TCEAAAAvf8JZAAfQ//73v/8BIUHi//FWIvqf8Z///Oc///nP/wsA"
	schema := `{"type":"json_schema","json_schema":{"name":"step","schema":{"type":"object","properties":{"action":{"anyOf":[
 {"type":"object","properties":{"type":{"const":"click"},"x":{"type":"integer"},"y":{"type":"integer"}},"required":["type","x","y"]},
 {"type":"object","properties":{"type":{"const":"done"}},"required":["type"]}]}},"required":["action"]}}}`
	body := `{"model":"adversary","messages":[{"role":"user","content":[{"type":"text","text":"Do the task."},{"type":"image_url","image_url":{"url":"` + shot + `"}}]}],"response_format":` + schema + `}`
	st, out, raw := post(t, pixelServer(t, fakePage{p: pratica4}).URL+"/v1/chat/completions", body)
	if st != 200 {
		t.Fatalf("status %d: %s", st, raw)
	}
	a, _ := contentOf(t, out)["action"].(map[string]any)
	if a["type"] != "click" || a["x"] != float64(32) || a["y"] != float64(75) {
		t.Errorf("answered %v, want click at (32, 75)", a)
	}
}
