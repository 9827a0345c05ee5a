package modelserve

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image"
	_ "image/jpeg" // the screenshots' formats, for their size
	_ "image/png"
	"math"
	"regexp"
	"strings"

	_ "golang.org/x/image/webp" // WebP screenshots (VP8, VP8L, VP8X): their size, here and in the call log

	"github.com/trapline/trapline/internal/toolmap"
)

// A pixel agent (magnitude-core, OpenAI's computer use) sees a screenshot and acts by coordinates.
// trapline does not read pixels: it answers from ground truth, the target element's box in the run's
// own browser (PageReader), scaled into the coordinate system the request declares (the screenshot's
// own pixels, a computer tool's display, or 0-1000 when the prompt says coordinates are normalized).
// No ground truth, or no declared coordinate system, is a 4xx naming the missing piece.

// PageReader reads the agent's current page from the run's own browser: the ground truth a
// coordinate answer is made of, whatever the agent chose to show its model.
type PageReader interface {
	ReadPage(ctx context.Context) (Page, error)
}

// Page is the agent's page as the run's browser has it.
type Page struct {
	URL string `json:"url"`
	// Width and Height are the viewport's, in CSS pixels: the boxes' coordinate system.
	Width  float64       `json:"width"`
	Height float64       `json:"height"`
	Nodes  []PageElement `json:"elements"`
}

// PageElement is one element of the page: its role and accessible name, its box in viewport CSS
// pixels, or a line of its text (Role "text").
type PageElement struct {
	Role string  `json:"role"`
	Name string  `json:"name"`
	X    float64 `json:"x"`
	Y    float64 `json:"y"`
	W    float64 `json:"w"`
	H    float64 `json:"h"`
}

// state writes the page as a page state (aria lines, a ref per element), the boxes by ref.
func (p Page) state() (*toolmap.State, map[string]PageElement) {
	var b strings.Builder
	st := &toolmap.State{Form: "ground-truth", URL: p.URL, Elements: map[string]toolmap.Element{}}
	boxes := map[string]PageElement{}
	for _, n := range p.Nodes {
		if n.Role == "text" {
			fmt.Fprintf(&b, "- text: %s\n", quote(n.Name))
			continue
		}
		ref := fmt.Sprintf("e%d", len(boxes)+1)
		fmt.Fprintf(&b, "- %s %s [ref=%s]\n", n.Role, quote(n.Name), ref)
		st.Elements[ref] = toolmap.Element{Ref: ref, Role: n.Role, Name: n.Name}
		boxes[ref] = n
	}
	st.Aria = strings.TrimRight(b.String(), "\n")
	return st, boxes
}

func quote(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// boxOf finds the element of role and name on the ground-truth page: exactly one, or an error
// naming how many.
func (p Page) boxOf(role, name string) (PageElement, error) {
	var found []PageElement
	for _, n := range p.Nodes {
		if n.Role == role && n.Name == name {
			found = append(found, n)
		}
	}
	if len(found) != 1 {
		return PageElement{}, fmt.Errorf("the run's browser shows %d elements %s %q on %s (want exactly one)", len(found), role, name, p.URL)
	}
	return found[0], nil
}

// coords is the coordinate system a request declares for its answers.
type coords struct {
	w, h float64 // the size of the space (an image's pixels, a display's, 1000 x 1000)
	from string  // what declared it, for the log
}

var normalized = regexp.MustCompile(`(?i)normali[sz]ed[^.\n]{0,60}\b1000\b|\b0\s*(?:-|–|to)\s*1000\b`)

// coordsOf is the request's coordinate system: a computer tool's display, 0-1000 when the prompt says
// so, else the last screenshot's own pixels; ok false when the request declares none.
func coordsOf(t turn) (coords, bool) {
	switch {
	case t.display != nil:
		return coords{float64(t.display.X), float64(t.display.Y), "the computer tool's display"}, true
	case normalized.MatchString(t.prompt):
		return coords{1000, 1000, "coordinates normalized to 0-1000"}, true
	case len(t.images) > 0:
		im := t.images[len(t.images)-1]
		return coords{float64(im.X), float64(im.Y), fmt.Sprintf("the screenshot's pixels (%dx%d)", im.X, im.Y)}, true
	}
	return coords{}, false
}

// point is the centre of a box in viewport CSS pixels, scaled to c.
func (c coords) point(p Page, box PageElement) ([2]int, error) {
	return c.pointAt(p, box, box.X+box.W/2, box.Y+box.H/2)
}

// pointAt is the point (cx, cy) in viewport CSS pixels, scaled to c: the centre of box, or where a
// habitual model remembers box's element (characters.go).
func (c coords) pointAt(p Page, box PageElement, cx, cy float64) ([2]int, error) {
	if p.Width <= 0 || p.Height <= 0 {
		return [2]int{}, fmt.Errorf("the run's browser gave no viewport size for %s", p.URL)
	}
	if box.W <= 0 || box.H <= 0 {
		return [2]int{}, fmt.Errorf("%s %q has no box in the run's browser (hidden or off-screen)", box.Role, box.Name)
	}
	if cx < 0 || cy < 0 || cx > p.Width || cy > p.Height {
		return [2]int{}, fmt.Errorf("%s %q is outside the viewport (%0.f,%0.f of %0.fx%0.f)", box.Role, box.Name, cx, cy, p.Width, p.Height)
	}
	return [2]int{int(math.Round(cx * c.w / p.Width)), int(math.Round(cy * c.h / p.Height))}, nil
}

// box is a box's corners (x1, y1, x2, y2) scaled to c; the caller has checked its centre with point.
func (c coords) box(p Page, b PageElement) *[4]int {
	sx, sy := c.w/p.Width, c.h/p.Height
	return &[4]int{int(math.Round(b.X * sx)), int(math.Round(b.Y * sy)), int(math.Round((b.X + b.W) * sx)), int(math.Round((b.Y + b.H) * sy))}
}

var dataURL = regexp.MustCompile(`^data:image/[a-zA-Z+.-]+;base64,`)

// imagesOf reads the size of each base64 image in a message's content parts (chat's image_url,
// Responses' input_image, a computer call's output).
func imagesOf(raw json.RawMessage) []image.Point {
	var parts []struct {
		Type     string          `json:"type"`
		ImageURL json.RawMessage `json:"image_url"`
	}
	if json.Unmarshal(raw, &parts) != nil {
		var one struct {
			Type     string          `json:"type"`
			ImageURL json.RawMessage `json:"image_url"`
		}
		if json.Unmarshal(raw, &one) != nil || one.ImageURL == nil {
			return nil
		}
		parts = append(parts, one)
	}
	var out []image.Point
	for _, p := range parts {
		var u string
		if json.Unmarshal(p.ImageURL, &u) != nil {
			var o struct {
				URL string `json:"url"`
			}
			_ = json.Unmarshal(p.ImageURL, &o)
			u = o.URL
		}
		if size, ok := imageSize(u); ok {
			out = append(out, size)
		}
	}
	return out
}

// imageSize reads a data URL's PNG, JPEG or WebP header: its width and height.
func imageSize(u string) (image.Point, bool) {
	loc := dataURL.FindStringIndex(u)
	if loc == nil {
		return image.Point{}, false
	}
	b, err := base64.StdEncoding.DecodeString(u[loc[1]:])
	if err != nil {
		return image.Point{}, false
	}
	cfg, _, err := image.DecodeConfig(bytes.NewReader(b))
	if err != nil {
		return image.Point{}, false
	}
	return image.Point{X: cfg.Width, Y: cfg.Height}, true
}
