package observe

import (
	"fmt"
	"strconv"
	"strings"
)

// parseBox reads a snapshot's `[box=x,y,width,height]` (CSS pixels relative to the frame's viewport,
// rounded) into Node.Box.
func parseBox(s string) ([4]int, error) {
	var v [4]int
	parts := strings.Split(s, ",")
	if len(parts) != 4 {
		return v, fmt.Errorf("bad box %q: want x,y,width,height", s)
	}
	for i, p := range parts {
		n, err := strconv.Atoi(p)
		if err != nil {
			return v, fmt.Errorf("bad box %q: %w", s, err)
		}
		v[i] = n
	}
	if v[2] < 0 || v[3] < 0 {
		return v, fmt.Errorf("bad box %q: negative size", s)
	}
	return v, nil
}
