package jsonl

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

type rec struct {
	V      int            `json:"v"`
	Path   string         `json:"path"`
	Reason string         `json:"reason"`
	Args   map[string]any `json:"args"`
	N      float64        `json:"n"`
	OK     bool           `json:"ok"`
	Nil    *int           `json:"nil"`
}

func TestShortLinesAreUnchanged(t *testing.T) {
	line := []byte(`{"v":1,"path":"/a<b>","n":1.50}`)
	if got := Bound(line); string(got) != string(line) {
		t.Fatalf("Bound changed a short line: %s", got)
	}
}

// TestALongRecordIsCutWithAMarker is issue 49.10: a 600 KB URL in a decision made a 1.2 MB line.
func TestALongRecordIsCutWithAMarker(t *testing.T) {
	long := "/" + strings.Repeat("è", 600<<10) // 1.2 MB of two-byte characters
	r := rec{V: 1, Path: long, Reason: "short <reason>", Args: map[string]any{"q": long, "k": []any{1, "x"}}, N: 2.5, OK: true}
	line, _ := json.Marshal(r)
	out := Bound(line)
	if len(out) > MaxLine {
		t.Fatalf("bounded line is %d bytes, over %d", len(out), MaxLine)
	}
	var got rec
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatalf("bounded line does not decode: %v\n%.300s", err, out)
	}
	if got.V != 1 || got.Reason != r.Reason || got.N != 2.5 || !got.OK || got.Nil != nil {
		t.Errorf("short fields changed: %+v", got)
	}
	if !utf8.ValidString(got.Path) || !strings.HasPrefix(got.Path, "/èè") || !strings.HasSuffix(got.Path, " bytes]") || len(got.Path) > MaxField {
		t.Errorf("path not cut with a marker within %d bytes: len %d, tail %q", MaxField, len(got.Path), got.Path[max(0, len(got.Path)-40):])
	}
	kept, tail, _ := strings.Cut(got.Path, "…[cut ")
	var n int
	if _, err := fmt.Sscanf(tail, "%d bytes]", &n); err != nil || len(kept)+n != len(long) {
		t.Errorf("marker %q does not count what was cut: kept %d + %d != %d", tail, len(kept), n, len(long))
	}
	if q, _ := got.Args["q"].(string); !strings.Contains(q, "…[cut ") {
		t.Errorf("nested string not cut: %.80q", q)
	}
	if k, _ := got.Args["k"].([]any); len(k) != 2 {
		t.Errorf("nested array changed: %v", got.Args["k"])
	}
}

func TestManyFieldsShrinkTheFieldBound(t *testing.T) {
	args := map[string]any{}
	for i := range 200 {
		args[strings.Repeat("k", 5)+string(rune('a'+i%26))+strings.Repeat("x", i)] = strings.Repeat("y", 20<<10)
	}
	line, _ := json.Marshal(rec{V: 3, Args: args})
	out := Bound(line)
	var got rec
	if err := json.Unmarshal(out, &got); err != nil || len(out) > MaxLine || got.V != 3 || len(got.Args) != 200 {
		t.Fatalf("len %d, err %v, v %d, %d args", len(out), err, got.V, len(got.Args))
	}
}

func TestARecordStringsCannotSaveKeepsItsShortMembers(t *testing.T) {
	many := make([]int, MaxLine) // no string to cut
	line, _ := json.Marshal(map[string]any{"v": 2, "path": "/x", "many": many})
	out := Bound(line)
	var got map[string]any
	if err := json.Unmarshal(out, &got); err != nil || len(out) > MaxLine {
		t.Fatalf("len %d, err %v", len(out), err)
	}
	if got["v"] != 2.0 || got["path"] != "/x" || got["many"] != nil || !strings.HasPrefix(got["cut"].(string), "…[cut ") {
		t.Errorf("got %v", got)
	}
	if out := Bound([]byte(`"` + strings.Repeat("a", MaxLine+10))); len(out) > MaxLine || !json.Valid(out) {
		t.Errorf("invalid JSON not bounded: %.80s", out)
	}
}

func TestCut(t *testing.T) {
	for _, c := range []struct {
		s    string
		max  int
		want string
	}{
		{"abc", 3, "abc"},
		{strings.Repeat("a", 40), 30, strings.Repeat("a", 30-len(Marker(40)))},
		{"abc", 1, ""},
	} {
		got := Cut(c.s, c.max)
		if !strings.HasPrefix(got, c.want) || (got != c.s && !strings.HasSuffix(got, " bytes]")) {
			t.Errorf("Cut(%q, %d) = %q", c.s, c.max, got)
		}
	}
}

func FuzzBound(f *testing.F) {
	f.Add([]byte(`{"v":1,"a":"x"}`), 10)
	f.Fuzz(func(t *testing.T, b []byte, rep int) {
		if rep < 0 || rep > 64 {
			return
		}
		line := append(append([]byte(`{"v":1,"s":`), b...), '}')
		if json.Valid(line) {
			line = append(line[:len(line)-1], []byte(`,"long":"`+strings.Repeat("z", MaxLine)+`"}`)...)
		}
		out := Bound(line)
		if len(line) <= MaxLine {
			if string(out) != string(line) {
				t.Fatalf("short line changed")
			}
			return
		}
		if len(out) > MaxLine || !json.Valid(out) {
			t.Fatalf("len %d valid %v", len(out), json.Valid(out))
		}
	})
}
