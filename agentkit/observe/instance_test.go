package observe

import (
	"errors"
	"strings"
	"testing"
)

// todoRows is a list of three rows, each with an icon-only "×"; rows[i] is the i-th row's text and
// ref of its button, in document order.
func todoRows(rows ...[2]string) string {
	var b strings.Builder
	b.WriteString("- list [ref=e1]:\n")
	for i, r := range rows {
		b.WriteString("  - listitem [ref=l" + string(rune('0'+i)) + "]:\n")
		b.WriteString("    - text: " + r[0] + "\n")
		b.WriteString("    - button \"×\" [ref=" + r[1] + "]\n")
	}
	b.WriteString("- link \"TodoMVC\" [ref=e90]:\n  - /url: https://todomvc.com/\n")
	return b.String()
}

// TestSameInstance: an instance of a repeated control is known by its ref and its record (the row it
// stands for): the same row, moved or not, passes; a row that now shows another record under the ref
// (a re-render in place) is STALE_REF; when the rows do not tell the instances apart, the rank among
// them must hold too (issue 32.3).
func TestSameInstance(t *testing.T) {
	milk, bill, tech := "Comprare il latte", "Pagare la bolletta", "Chiamare il tecnico"
	before := todoRows([2]string{milk, "e3"}, [2]string{bill, "e5"}, [2]string{tech, "e7"})
	for _, c := range []struct {
		name, before, after string
		stale               bool
	}{
		{"unchanged", before, before, false},
		{"rows reordered: the ref moved with its row", before, todoRows([2]string{tech, "e7"}, [2]string{milk, "e3"}, [2]string{bill, "e5"}), false},
		{"a row deleted elsewhere", before, todoRows([2]string{bill, "e5"}, [2]string{tech, "e7"}), false},
		{"re-rendered in place: another record under the ref", before, todoRows([2]string{tech, "e3"}, [2]string{milk, "e5"}, [2]string{bill, "e7"}), true},
		{"the last twin left shows another record", todoRows([2]string{milk, "e3"}, [2]string{bill, "e5"}), todoRows([2]string{milk, "e5"}), true},
		{"twins appeared and the ref's row changed", todoRows([2]string{bill, "e5"}), todoRows([2]string{milk, "e5"}, [2]string{bill, "e9"}), true},
		{"twins appeared, the ref's row unchanged", todoRows([2]string{bill, "e5"}), todoRows([2]string{milk, "e9"}, [2]string{bill, "e5"}), false},
		{"two rows read the same, rank kept", todoRows([2]string{bill, "e3"}, [2]string{bill, "e5"}), todoRows([2]string{bill, "e3"}, [2]string{bill, "e5"}), false},
		{"two rows read the same, rank changed", todoRows([2]string{bill, "e3"}, [2]string{bill, "e5"}), todoRows([2]string{bill, "e5"}, [2]string{bill, "e3"}), true},
		{"side by side, nothing encloses one alone: rank kept", "- generic [ref=e1]:\n  - button \"×\" [ref=e3]\n  - button \"×\" [ref=e5]\n", "- generic [ref=e1]:\n  - button \"×\" [ref=e3]\n  - button \"×\" [ref=e5]\n", false},
		{"side by side: rank changed", "- generic [ref=e1]:\n  - button \"×\" [ref=e3]\n  - button \"×\" [ref=e5]\n", "- generic [ref=e1]:\n  - button \"×\" [ref=e5]\n  - button \"×\" [ref=e3]\n", true},
		{"moved out of its row", before, "- list [ref=e1]:\n  - button \"×\" [ref=e5]\n  - button \"×\" [ref=e3]\n", true},
		{"no twin at all", "- button \"×\" [ref=e5]\n", "- paragraph: altro\n- button \"×\" [ref=e5]\n", false},
	} {
		t.Run(c.name, func(t *testing.T) {
			b, a := mustParse(t, "s1", "http://todo.example.test/", c.before), mustParse(t, "s2", "http://todo.example.test/", c.after)
			n, err := b.Lookup("s1:e5")
			if err != nil {
				t.Fatal(err)
			}
			m, err := a.Lookup("s2:e5")
			if err != nil {
				t.Fatal(err)
			}
			err = SameInstance(b, n, a, m)
			if got := errors.Is(err, ErrStaleRef); got != c.stale || (err != nil && !c.stale) {
				t.Fatalf("SameInstance = %v; want stale %v", err, c.stale)
			}
		})
	}
}
