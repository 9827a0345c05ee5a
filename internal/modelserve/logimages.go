package modelserve

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	_ "image/gif" // DecodeConfig reads the dimensions of the formats agents send
	_ "image/jpeg"
	_ "image/png"
	"net/http"
	"strings"
)

// The call log keeps every request whole, as JSON, but not its images: a screenshot agent sends one
// or more base64 images a turn (a data URL in OpenAI's image_url and input_image, a base64 source in
// Anthropic's image blocks, a bare base64 string in a tool's output), megabytes that say nothing a
// reader of the log needs but their type, size and dimensions. withoutImages puts that description
// in each one's place: "[image image/png, 48213 bytes, 1280x800]".

// minBareBase64 is the shortest bare string (no data: prefix, no media type beside it) that is
// sniffed as a base64 image: shorter ones cost nothing to keep.
const minBareBase64 = 512

// withoutImages returns body (valid JSON) with its images described; body as it is when it holds none.
func withoutImages(body []byte) json.RawMessage {
	if !bytes.Contains(body, []byte("base64")) && !mayHoldBareImage(body) {
		return body
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber() // numbers are kept as written
	var v any
	if dec.Decode(&v) != nil {
		return body
	}
	v, changed := stripImages(v)
	if !changed {
		return body
	}
	out, err := json.Marshal(v)
	if err != nil {
		return body
	}
	return out
}

// mayHoldBareImage says whether body may hold a bare base64 image: the encodings of PNG's, JPEG's,
// GIF's and WebP's first bytes.
func mayHoldBareImage(body []byte) bool {
	for _, magic := range []string{`"iVBORw0KGgo`, `"/9j/`, `"R0lGOD`, `"UklGR`} {
		if bytes.Contains(body, []byte(magic)) {
			return true
		}
	}
	return false
}

// stripImages walks a decoded JSON value and replaces its images; changed says whether it did.
func stripImages(v any) (any, bool) {
	switch x := v.(type) {
	case string:
		if d, ok := describeImageString(x); ok {
			return d, true
		}
	case []any:
		changed := false
		for i, e := range x {
			var c bool
			x[i], c = stripImages(e)
			changed = changed || c
		}
		return x, changed
	case map[string]any:
		changed := false
		// A base64 payload whose media type is a sibling: Anthropic's {type: base64, media_type, data},
		// MCP's and Gemini's {mimeType|mime_type, data}.
		if data, ok := x["data"].(string); ok {
			for _, k := range []string{"media_type", "mimeType", "mime_type"} {
				if mt, ok := x[k].(string); ok && len(data) > 0 {
					if d, ok := describeBase64(mt, data); ok {
						x["data"], changed = d, true
					}
					break
				}
			}
		}
		for k, e := range x {
			var c bool
			x[k], c = stripImages(e)
			changed = changed || c
		}
		return x, changed
	}
	return v, false
}

// describeImageString describes a data URL ("data:image/png;base64,...") or a long bare base64
// string that decodes to an image; ok false leaves the string as it is.
func describeImageString(s string) (string, bool) {
	if rest, ok := strings.CutPrefix(s, "data:"); ok {
		meta, data, found := strings.Cut(rest, ",")
		if !found || !strings.HasSuffix(meta, ";base64") {
			return "", false
		}
		return describeBase64(strings.TrimSuffix(meta, ";base64"), data)
	}
	if len(s) < minBareBase64 || strings.HasPrefix(s, "[image ") {
		return "", false
	}
	head, err := base64.StdEncoding.DecodeString(s[:64])
	if err != nil || !strings.HasPrefix(http.DetectContentType(head), "image/") {
		return "", false
	}
	return describeBase64(http.DetectContentType(head), s)
}

// describeBase64 is the description of base64 data of media type mt: its type, its decoded size and,
// for an image whose format is registered (PNG, JPEG, GIF; WebP, pixels.go), its dimensions. Data that is
// no base64 is not described (ok false).
func describeBase64(mt, data string) (string, bool) {
	if strings.HasPrefix(data, "[image ") || strings.HasPrefix(data, "[data ") {
		return "", false // already described
	}
	raw, err := base64.StdEncoding.DecodeString(strings.TrimRight(data, "\n"))
	if err != nil {
		if raw, err = base64.RawStdEncoding.DecodeString(data); err != nil {
			return "", false
		}
	}
	if mt == "" {
		mt = http.DetectContentType(raw)
	}
	kind := "data"
	if strings.HasPrefix(mt, "image/") {
		kind = "image"
	}
	desc := fmt.Sprintf("[%s %s, %d bytes", kind, mt, len(raw))
	if cfg, _, err := image.DecodeConfig(bytes.NewReader(raw)); err == nil {
		desc += fmt.Sprintf(", %dx%d", cfg.Width, cfg.Height)
	}
	return desc + "]", true
}
