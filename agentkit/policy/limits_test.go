package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// bigPolicy writes a valid policy whose deny_paths list has n patterns of about 72 bytes each (the
// hostile tester's 50 MB file had 728k) and returns its path.
func bigPolicy(t testing.TB, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("version: 1\nnavigation:\n  allow:\n    - host: portale.interno.test\n      paths: [\"^/$\"]\n  deny_paths:\n")
	for i := range n {
		fmt.Fprintf(&b, "    - \"^/area-riservata/deny/path-number-%07d/[a-z0-9]+/segment$\"\n", i)
	}
	p := filepath.Join(t.TempDir(), "big.yml")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// measure runs f and returns its wall time and the bytes it allocated (the heap it could have held).
func measure(f func()) (time.Duration, uint64) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start := time.Now()
	f()
	elapsed := time.Since(start)
	runtime.ReadMemStats(&after)
	return elapsed, after.TotalAlloc - before.TotalAlloc
}

// TestLoadRefusesAPolicyOverItsSizeBeforeReadingIt: issue 28.5. A valid 50 MB policy (724k
// deny_paths) took 53 s and 8.4 GB RSS; it is refused from its size alone, naming file, size and
// limit, in well under a second and allocating almost nothing.
func TestLoadRefusesAPolicyOverItsSizeBeforeReadingIt(t *testing.T) {
	if testing.Short() {
		t.Skip("writes a 50 MB file")
	}
	p := bigPolicy(t, 724637)
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	var perr error
	elapsed, alloc := measure(func() { _, perr = Load(p) })
	t.Logf("Load(%d bytes): %s, %d bytes allocated", fi.Size(), elapsed, alloc)
	want := fmt.Sprintf("%s: %d bytes, over the limit of %d bytes (1 MiB)", p, fi.Size(), MaxFileBytes)
	if perr == nil || perr.Error() != want {
		t.Fatalf("Load = %v, want %q", perr, want)
	}
	if !errors.Is(perr, ErrTooLarge) || !errors.Is(perr, CodeTooLarge) {
		t.Fatalf("Load's error %v matches neither ErrTooLarge nor CodeTooLarge", perr)
	}
	if elapsed > time.Second || alloc > 1<<20 {
		t.Fatalf("refusing took %s and allocated %d bytes: want under 1s and 1 MiB (the file is not read)", elapsed, alloc)
	}
	data, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Parse("big.yml", data); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("Parse of %d bytes = %v, want ErrTooLarge", len(data), err)
	}
}

// TestListsOverTheirLimitAreRefused: a list longer than MaxListItems, and lists that together (an
// alias counted at each use) pass MaxTotalItems, are refused naming the field and the limit.
func TestListsOverTheirLimitAreRefused(t *testing.T) {
	p := bigPolicy(t, MaxListItems+1)
	_, err := Load(p)
	want := fmt.Sprintf("%s:7:5: navigation.deny_paths: %d items, over the limit of %d items in one list", p, MaxListItems+1, MaxListItems)
	if err == nil || !strings.Contains(err.Error(), want) || !errors.Is(err, CodeTooLarge) {
		t.Fatalf("err = %v, want %q", err, want)
	}
	if _, err := Load(bigPolicy(t, MaxListItems)); err != nil {
		t.Fatalf("a list at the limit: %v", err)
	}

	var b strings.Builder
	b.WriteString("version: 1\nnavigation:\n  deny_paths: &many\n")
	for i := range MaxListItems {
		fmt.Fprintf(&b, "    - \"^/x%d\"\n", i)
	}
	b.WriteString("  allow:\n")
	for i := range MaxTotalItems/MaxListItems + 1 {
		fmt.Fprintf(&b, "    - {host: h%d.interno.test, paths: *many}\n", i)
	}
	_, err = Parse("alias.yml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("more than %d items together", MaxTotalItems)) || strings.Count(err.Error(), "\n") != 0 {
		t.Fatalf("err = %v, want one error about the total", err)
	}
}

// TestAPolicyAtTheLimitsCostsASmallMultipleOfItsSize: the worst policy the limits allow (a file
// near MaxFileBytes, every list full of patterns) parses in bounded time and memory.
func TestAPolicyAtTheLimitsCostsASmallMultipleOfItsSize(t *testing.T) {
	var b strings.Builder
	b.WriteString("version: 1\nnavigation:\n  allow:\n")
	items := 0
	for h := 0; b.Len() < MaxFileBytes-64<<10 && items < MaxTotalItems; h++ {
		fmt.Fprintf(&b, "    - host: h%d.interno.test\n      paths:\n", h)
		items++
		for i := 0; i < MaxListItems && b.Len() < MaxFileBytes-64<<10 && items < MaxTotalItems; i++ {
			fmt.Fprintf(&b, "        - \"^/p%d/(a|b)+[0-9]{2}/[^/]+/x{1,3}$\"\n", i)
			items++
		}
	}
	data := []byte(b.String())
	var perr error
	elapsed, alloc := measure(func() { _, perr = Parse("limits.yml", data) })
	t.Logf("Parse(%d bytes): %s, %d bytes allocated (%.0fx)", len(data), elapsed, alloc, float64(alloc)/float64(len(data)))
	if perr != nil {
		t.Fatal(perr)
	}
	if alloc > 100*uint64(MaxFileBytes) || elapsed > 10*time.Second {
		t.Fatalf("a %d-byte policy allocated %d bytes in %s", len(data), alloc, elapsed)
	}
}

// TestAPatternThatCompilesToMegabytesIsRefused: a short regex can stand for a large program
// ("a{1000}" is 1000 instructions in 7 bytes); one over MaxPatternInsts is refused, and so are
// patterns that together pass MaxTotalPatternInsts.
func TestAPatternThatCompilesToMegabytesIsRefused(t *testing.T) {
	big := strings.Repeat("a{1000}", 6)
	_, err := Parse("re.yml", []byte("navigation:\n  deny_paths: [\""+big+"\"]\n"))
	if err == nil || !errors.Is(err, CodeTooLarge) || !strings.Contains(err.Error(), "re.yml:2:16: navigation.deny_paths[0]: regex") || !strings.Contains(err.Error(), "over the limit of 5000") {
		t.Fatalf("err = %v", err)
	}
	var b strings.Builder
	b.WriteString("navigation:\n  deny_paths:\n")
	for range MaxTotalPatternInsts/4000 + 1 {
		b.WriteString("    - \"" + strings.Repeat("a{1000}", 4) + "\"\n")
	}
	_, err = Parse("re.yml", []byte(b.String()))
	if err == nil || !strings.Contains(err.Error(), "compile to more than 250000 instructions together") {
		t.Fatalf("err = %v", err)
	}
}
