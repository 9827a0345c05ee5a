package observe

import "testing"

// The 500-row sample: 500 rows of ID, title, state and a cell with a link
// and a button; about 3,500 refs and 150 KB.

func BenchmarkParse(b *testing.B) {
	raw := readTestdata(b, "table500.txt")
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		o, err := Parse("bench1", "https://staging.test/pratiche", raw)
		if err != nil || !o.Complete {
			b.Fatal(err, o.Warnings)
		}
	}
}

func BenchmarkCompact(b *testing.B) {
	o, err := Parse("bench1", "https://staging.test/pratiche", readTestdata(b, "table500.txt"))
	if err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name string
		opts CompactOptions
	}{
		{"all", CompactOptions{}},
		{"all+text", CompactOptions{IncludeText: true}},
		{"cap200", CompactOptions{MaxElements: 200}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := o.Compact(bc.opts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkHash(b *testing.B) {
	o, err := Parse("bench1", "https://staging.test/pratiche", readTestdata(b, "table500.txt"))
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		_ = o.Hash()
	}
}

// TestTable500 checks the benchmark sample parses completely and compacts
// with an honest cap.
func TestTable500(t *testing.T) {
	o := mustParse(t, "big500", "https://staging.test/pratiche", readTestdata(t, "table500.txt"))
	if !o.Complete {
		t.Fatalf("incomplete: %v", o.Warnings)
	}
	// 1 generic, 1 heading, 1 table, 2 rowgroups, 1 header row + 4 headers,
	// and per row: row, 4 cells, link, button.
	if got, want := len(o.Elements()), 1+1+1+2+1+4+500*7; got != want {
		t.Errorf("elements = %d, want %d", got, want)
	}
	if _, err := o.Find("button", "Archivia 500"); err != nil {
		t.Error(err)
	}
	if _, err := o.Find("cell", "aperta"); err == nil {
		t.Error("500 cells named aperta should be ambiguous")
	}
	c, err := o.Compact(CompactOptions{MaxElements: 100})
	if err != nil {
		t.Fatal(err)
	}
	if c.Complete || c.Kept != 100 || c.Total != 1+4+500*5 {
		t.Errorf("kept %d total %d complete %v", c.Kept, c.Total, c.Complete)
	}
}
