package proctree

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Alone estimates, in kB, what the tree below root would hold on a machine where no other process
// maps the same files: PSS without the discount for pages shared with processes outside the tree
// (another Chromium or Node.js mapping the same binaries and libraries). From /proc/<pid>/smaps:
// anonymous mappings count their PSS (their pages are shared only within a fork family, which is in the
// tree); file mappings count their private pages, plus their shared pages once for each file range
// (device, inode, offset, size), taking the largest resident share any process of the tree has of
// it. That undercounts a range of which two of the tree's processes hold different pages, so it is an
// estimate: near PSS measured alone, and unlike PSS, not lowered by a busy machine.
func Alone(root int) (int, error) {
	if root == 0 {
		root = os.Getpid()
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", root)); err != nil {
		return 0, fmt.Errorf("process %d: %w", root, err)
	}
	shared := map[string]int{} // file range -> largest shared resident kB in one process
	total := 0
	kids := children(scan())
	var walk func(pid int)
	walk = func(pid int) {
		total += smapsAlone(pid, shared)
		for _, c := range kids[pid] {
			walk(c)
		}
	}
	walk(root)
	for _, kb := range shared {
		total += kb
	}
	return total, nil
}

// smapsAlone adds one process's file ranges to shared and returns the rest of what it holds: its
// anonymous PSS and its file mappings' private pages.
func smapsAlone(pid int, shared map[string]int) int {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps", pid))
	if err != nil {
		return 0 // the process ended
	}
	defer f.Close()
	own := 0
	key, anon := "", true
	sharedKB := 0
	flush := func() {
		if !anon && sharedKB > shared[key] {
			shared[key] = sharedKB
		}
		sharedKB = 0
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64*1024), 1024*1024)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 {
			continue
		}
		if !strings.HasSuffix(fs[0], ":") { // a mapping's header: range perms offset dev inode [path]
			flush()
			anon = len(fs) < 5 || fs[4] == "0"
			if !anon {
				lo, hi, _ := strings.Cut(fs[0], "-")
				a, _ := strconv.ParseUint(lo, 16, 64)
				b, _ := strconv.ParseUint(hi, 16, 64)
				key = fs[3] + " " + fs[4] + " " + fs[2] + " " + strconv.FormatUint(b-a, 10)
			}
			continue
		}
		if len(fs) < 2 {
			continue
		}
		v, _ := strconv.Atoi(fs[1])
		switch fs[0] {
		case "Pss:":
			if anon {
				own += v
			}
		case "Private_Clean:", "Private_Dirty:":
			if !anon {
				own += v
			}
		case "Shared_Clean:", "Shared_Dirty:":
			if !anon {
				sharedKB += v
			}
		}
	}
	flush()
	return own
}
