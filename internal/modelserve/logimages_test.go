package modelserve

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"image"
	"image/jpeg"
	"image/png"
	"math/rand/v2"
	"strings"
	"testing"
)

// encoded is a w x h image in format ("png" or "jpeg"), base64.
func encoded(t testing.TB, format string, w, h int) string {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range img.Pix { // noise, so the encoding is not tiny
		img.Pix[i] = byte(r.IntN(256))
	}
	var b bytes.Buffer
	var err error
	if format == "png" {
		err = png.Encode(&b, img)
	} else {
		err = jpeg.Encode(&b, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return base64.StdEncoding.EncodeToString(b.Bytes())
}

// The call log keeps a request over 64 KiB whole, as JSON, every image in it (an OpenAI data URL,
// an Anthropic base64 image block, a bare base64 screenshot in a tool's output, a Responses
// input_image) replaced by its type, size and dimensions; the rest as sent.
func TestCallLogKeepsRequestsWholeWithImagesDescribed(t *testing.T) {
	shot := encoded(t, "png", 200, 120)
	photo := encoded(t, "jpeg", 320, 200)
	if len(shot) < 64<<10 {
		t.Fatalf("the screenshot is %d bytes: want one over the old 64 KiB cut", len(shot))
	}
	for _, tc := range []struct {
		name, path, body string
		want             []string
	}{
		{"chat image_url", "/v1/chat/completions", `{"model":"adversary","messages":[{"role":"user","content":[{"type":"text","text":"the page"},
			{"type":"image_url","image_url":{"url":"data:image/png;base64,` + shot + `"}}]},{"role":"user","content":"the last message"}]}`,
			[]string{`"url":"[image image/png, `, `, 200x120]"`, `"the last message"`}},
		{"anthropic image block", "/v1/messages", `{"model":"adversary","max_tokens":5,"messages":[{"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":[
			{"type":"image","source":{"type":"base64","media_type":"image/jpeg","data":"` + photo + `"}},{"type":"text","text":"after the image"}]}]}]}`,
			[]string{`"data":"[image image/jpeg, `, `, 320x200]"`, `"media_type":"image/jpeg"`, `"after the image"`}},
		{"bare base64 in a tool output", "/v1/chat/completions", `{"model":"adversary","messages":[{"role":"tool","tool_call_id":"c","content":"` + shot + `"},{"role":"user","content":"end"}]}`,
			[]string{`"content":"[image image/png, `, `, 200x120]"`}},
		{"responses input_image", "/v1/responses", `{"model":"adversary","input":[{"role":"user","content":[{"type":"input_image","image_url":"data:image/jpeg;base64,` + photo + `"}]}],"temperature":0.10}`,
			[]string{`"image_url":"[image image/jpeg, `, `"temperature":0.10`}},
		{"a data URL that is no image", "/v1/chat/completions", `{"model":"adversary","messages":[{"role":"user","content":"data:text/plain;base64,aGVsbG8="}]}`,
			[]string{`"[data text/plain, 5 bytes]"`}},
	} {
		s, srv, log := newServer(t)
		s.Planner = lazyPlanner(t)
		if tc.path == "/v1/messages" {
			postAnthropic(t, srv.URL+tc.path, tc.body, nil)
		} else {
			post(t, srv.URL+tc.path, tc.body)
		}
		line := log.String()
		var rec struct{ Request json.RawMessage }
		if err := json.Unmarshal([]byte(line), &rec); err != nil || len(rec.Request) == 0 || rec.Request[0] != '{' {
			t.Errorf("%s: the logged request is not the request's JSON object: %v\n%.300s", tc.name, err, line)
			continue
		}
		for _, want := range tc.want {
			if !strings.Contains(string(rec.Request), want) {
				t.Errorf("%s: the logged request lacks %s:\n%.600s", tc.name, want, rec.Request)
			}
		}
		if strings.Contains(line, shot[:200]) || strings.Contains(line, photo[:200]) || len(line) > 4096 {
			t.Errorf("%s: the image's bytes are in the log (%d bytes)", tc.name, len(line))
		}
	}
}

// A request with no image is kept byte for byte; a long base64-like string that is no image, and a
// string that merely starts like a data URL, as they are.
func TestWithoutImagesLeavesTheRestAlone(t *testing.T) {
	notImage := strings.Repeat("QUJD", 300) // "ABC..." in base64: no image
	for _, body := range []string{
		`{"model":"m","messages":[{"role":"user","content":"x <b> & \u00e8"}],"n":1.50}`,
		`{"data":"` + notImage + `","media_type":"text/plain","t":"data:image/png;base64"}`,
		`{"a":"data:image/png,not-base64","b":"iVBORw0KGgo but no base64"}`,
	} {
		got := withoutImages([]byte(body))
		if !strings.Contains(body, "media_type") && string(got) != body {
			t.Errorf("withoutImages(%.80s) = %.200s, want it unchanged", body, got)
		}
		if strings.Contains(body, "media_type") && !strings.Contains(string(got), `"[data text/plain, 900 bytes]"`) {
			t.Errorf("a base64 payload with its media type is described by its type and size: %.200s", got)
		}
	}
}

// Whatever valid JSON comes in, valid JSON goes out.
func FuzzWithoutImages(f *testing.F) {
	f.Add([]byte(`{"a":"data:image/png;base64,iVBORw0KGgo=","b":[1,2.50,{"data":"aGk=","mimeType":"image/png"}]}`))
	f.Add([]byte(`["` + encoded(f, "png", 4, 4) + `"]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		if !json.Valid(in) {
			return
		}
		if out := withoutImages(in); !json.Valid(out) {
			t.Fatalf("withoutImages(%q) = %q: no JSON", in, out)
		}
	})
}
