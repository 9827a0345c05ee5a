package main

import (
	"strings"
	"testing"
)

func TestParseMedians(t *testing.T) {
	in := `goos: linux
BenchmarkDecide-2   	 1000	       600 ns/op	      64 B/op	       2 allocs/op
BenchmarkDecide-2   	 1000	       700 ns/op	      64 B/op	       2 allocs/op
BenchmarkDecide-2   	 1000	       500 ns/op	      64 B/op	       2 allocs/op
BenchmarkProxyOverhead-2 3000 184521 ns/op 52.00 added-p50-µs
PASS`
	res, err := parse(strings.NewReader(in))
	if err != nil {
		t.Fatal(err)
	}
	if m := res.Benchmarks["BenchmarkDecide"]["ns/op"]; m.Median != 600 || len(m.Runs) != 3 {
		t.Fatalf("Decide ns/op = %+v", m)
	}
	if m := res.Benchmarks["BenchmarkProxyOverhead"]["added-p50-µs"]; m.Median != 52 {
		t.Fatalf("ProxyOverhead added = %+v", m)
	}
	if _, err := parse(strings.NewReader("BenchmarkX-2 1 abc ns/op")); err == nil {
		t.Fatal("a garbled value must be an error")
	}
}
