package proctree

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
)

// Mem is the memory of a process tree in kB, split by kind as CPU is. PSS (proportional set size,
// smaps_rollup) splits shared pages between the processes sharing them, so it adds up to what the
// tree really holds; RSS counts shared pages once per process; USS (private pages only) is what the
// tree holds that nobody else maps. PSS also splits pages with processes outside the tree (another
// Chromium or Node.js mapping the same binary), so on a machine where others run the same programs it
// reads lower than alone: USS is then the floor, PSS measured alone the figure, the RSS sum the ceiling.
type Mem struct {
	PSS, RSS, USS                int // the whole tree
	GoPSS, DriverPSS, ChromePSS  int // PSS by kind
	Processes, ChromiumProcesses int
}

// Memory reads the memory of the tree below root (this process when root is 0) now.
func Memory(root int) (Mem, error) {
	if root == 0 {
		root = os.Getpid()
	}
	if _, err := os.Stat(fmt.Sprintf("/proc/%d", root)); err != nil {
		return Mem{}, fmt.Errorf("process %d: %w", root, err)
	}
	var m Mem
	procs := scan()
	kids := children(procs)
	var walk func(pid int, parent kind)
	walk = func(pid int, parent kind) {
		k := classify(procs[pid].comm, parent)
		rss, pss, uss := smapsRollup(pid)
		m.RSS += rss
		m.PSS += pss
		m.USS += uss
		m.Processes++
		switch k {
		case kindGo:
			m.GoPSS += pss
		case kindDriver:
			m.DriverPSS += pss
		default:
			m.ChromePSS += pss
			m.ChromiumProcesses++
		}
		for _, c := range kids[pid] {
			walk(c, k)
		}
	}
	walk(root, kindGo)
	return m, nil
}

// Max keeps the larger of each field (peaks of a series of samples; each field peaks on its own).
func (m Mem) Max(o Mem) Mem {
	return Mem{PSS: max(m.PSS, o.PSS), RSS: max(m.RSS, o.RSS), USS: max(m.USS, o.USS), GoPSS: max(m.GoPSS, o.GoPSS),
		DriverPSS: max(m.DriverPSS, o.DriverPSS), ChromePSS: max(m.ChromePSS, o.ChromePSS),
		Processes: max(m.Processes, o.Processes), ChromiumProcesses: max(m.ChromiumProcesses, o.ChromiumProcesses)}
}

func smapsRollup(pid int) (rssKB, pssKB, ussKB int) {
	f, err := os.Open(fmt.Sprintf("/proc/%d/smaps_rollup", pid))
	if err != nil {
		return 0, 0, 0 // the process ended
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) < 2 {
			continue
		}
		v, _ := strconv.Atoi(fs[1])
		switch fs[0] {
		case "Rss:":
			rssKB = v
		case "Pss:":
			pssKB = v
		case "Private_Clean:", "Private_Dirty:":
			ussKB += v
		}
	}
	return rssKB, pssKB, ussKB
}
