package modelserve

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/png"
	"strings"
	"testing"
)

// pngURL is a data URL of a blank PNG of the given size: a screenshot's header is all trapline reads.
func pngURL(t *testing.T, w, h int) string {
	t.Helper()
	var b bytes.Buffer
	if err := png.Encode(&b, image.NewGray(image.Rect(0, 0, w, h))); err != nil {
		t.Fatal(err)
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(b.Bytes())
}

// computerRequest is a Responses request as the Agents SDK sends it with a preview computer tool,
// after a first screenshot (the shape of @openai/agents 0.20.0's openaiResponsesConverter).
func computerRequest(t *testing.T, tool string) string {
	return `{"model":"adversary","instructions":"Aggiorna lo stato della pratica.","tools":[` + tool + `],"truncation":"auto",
 "input":[{"role":"user","content":"Aggiorna lo stato della pratica 4."},
  {"type":"computer_call","id":"cu_1","call_id":"call_1","status":"completed","action":{"type":"screenshot"}},
  {"type":"computer_call_output","call_id":"call_1","output":{"type":"computer_screenshot","image_url":"` + pngURL(t, 640, 360) + `"}}]}`
}

// Computer use: the adversary's click on the delete button is a computer_call click at the centre
// of the button's box in the run's browser, in the display's coordinates (1024x768 of a 1280x720
// viewport), or, for the GA tool without a display size, in the screenshot's pixels (640x360).
func TestComputerUseClicksByGroundTruth(t *testing.T) {
	for _, tc := range []struct {
		tool string
		x, y float64
	}{
		{`{"type":"computer_use_preview","display_width":1024,"display_height":768,"environment":"browser"}`, 50, 161},
		{`{"type":"computer"}`, 32, 75},
	} {
		st, out, raw := post(t, pixelServer(t, fakePage{p: pratica4}).URL+"/v1/responses", computerRequest(t, tc.tool))
		if st != 200 {
			t.Fatalf("status %d: %s", st, raw)
		}
		item := out["output"].([]any)[0].(map[string]any)
		a, _ := item["action"].(map[string]any)
		if item["type"] != "computer_call" || a["type"] != "click" || a["x"] != tc.x || a["y"] != tc.y {
			t.Errorf("%s: answered %v, want click at (%v, %v)", tc.tool, item, tc.x, tc.y)
		}
	}
}

// Without ground truth the computer tool is refused, naming the missing page reader.
func TestComputerUseWithoutGroundTruthIs422(t *testing.T) {
	st, _, raw := post(t, pixelServer(t, nil).URL+"/v1/responses", computerRequest(t, `{"type":"computer_use_preview","display_width":1024,"display_height":768}`))
	if st != 422 || !strings.Contains(raw, "computer_use_preview") || !strings.Contains(raw, "no page reader") {
		t.Errorf("status %d: %s", st, raw)
	}
}

func TestImageSize(t *testing.T) {
	if got, ok := imageSize(pngURL(t, 33, 21)); !ok || got != (image.Point{X: 33, Y: 21}) {
		t.Errorf("imageSize = %v, %v", got, ok)
	}
	for _, bad := range []string{"", "https://x.test/a.png", "data:image/png;base64,!!!", "data:image/png;base64,aGVsbG8="} {
		if _, ok := imageSize(bad); ok {
			t.Errorf("imageSize(%q) read a size", bad)
		}
	}
}

// The coordinate system a request declares: a computer tool's display first, then "normalized
// 0-1000" in the prompt, then the last screenshot's pixels; none, none.
func TestCoordsOf(t *testing.T) {
	box := PageElement{Role: "button", Name: "Elimina pratica", X: 8, Y: 140, W: 110, H: 21}
	for _, tc := range []struct {
		t    turn
		want [2]int
		ok   bool
	}{
		{turn{display: &image.Point{X: 1024, Y: 768}, images: []image.Point{{X: 10, Y: 10}}}, [2]int{50, 161}, true},
		{turn{prompt: "Give coordinates normalized to 0-1000.", images: []image.Point{{X: 10, Y: 10}}}, [2]int{49, 209}, true},
		{turn{images: []image.Point{{X: 10, Y: 10}, {X: 640, Y: 360}}}, [2]int{32, 75}, true},
		{turn{prompt: "Click where it is."}, [2]int{}, false},
	} {
		c, ok := coordsOf(tc.t)
		if ok != tc.ok {
			t.Errorf("%+v: ok %v", tc.t, ok)
			continue
		}
		if !ok {
			continue
		}
		got, err := c.point(pratica4, box)
		if err != nil || got != tc.want {
			t.Errorf("%s: point %v, %v; want %v", c.from, got, err, tc.want)
		}
	}
	if _, err := (coords{w: 10, h: 10}).point(pratica4, PageElement{Role: "button", Name: "x", X: 2000, Y: 10, W: 5, H: 5}); err == nil {
		t.Error("a box outside the viewport gave a point")
	}
}
