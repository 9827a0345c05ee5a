package container

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// Labels on every container and network a container world creates. Without Ryuk, cleanup is ours:
// the labels let a run find what it left and let Sweep find what crashed runs left.
const (
	// LabelWorld marks trapline's world resources ("1").
	LabelWorld = "trapline.world"
	// LabelRun is the run ID, shared by the Ginkgo processes of one run.
	LabelRun = "trapline.run"
	// LabelOwner names the process that created the resource: "<hostname>/<pid>/<start time>".
	LabelOwner = "trapline.owner"
)

// Owner returns this process's owner token: host name, pid and the process's start time (field 22 of
// /proc/self/stat), so that a recycled pid is not taken for a live owner.
func Owner() string { return ownerOf(os.Getpid()) }

func ownerOf(pid int) string {
	host, _ := os.Hostname()
	return fmt.Sprintf("%s/%d/%s", host, pid, startTime(pid))
}

// startTime reads a process's start time in clock ticks since boot; "" when /proc cannot say.
func startTime(pid int) string {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return ""
	}
	// The command name (field 2) is in parentheses and may hold spaces: count from the last ')'.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	if i < 0 {
		return ""
	}
	fields := strings.Fields(s[i+1:])
	// After ')' come field 3 (state) onwards; field 22 is index 19.
	if len(fields) < 20 {
		return ""
	}
	return fields[19]
}

// ownerGone reports whether the owner token names a process of this host that no longer runs. An
// owner on another host (a shared remote engine) is never taken for gone: its run sweeps itself.
func ownerGone(owner string) bool {
	parts := strings.Split(owner, "/")
	if len(parts) != 3 {
		return false // not ours to judge
	}
	if host, _ := os.Hostname(); parts[0] != host {
		return false
	}
	pid, err := strconv.Atoi(parts[1])
	if err != nil || pid <= 0 {
		return false
	}
	if err := syscall.Kill(pid, 0); err != nil && errors.Is(err, syscall.ESRCH) {
		return true
	}
	// Alive (or not ours to signal): the same process only if it started at the same time.
	return parts[2] != "" && startTime(pid) != parts[2]
}

// Leftover is a container or network carrying LabelWorld.
type Leftover struct {
	Kind  string // "container" or "network"
	ID    string
	Name  string
	Run   string
	Owner string
}

func (l Leftover) String() string {
	return fmt.Sprintf("%s %s (%s, run %s, owner %s)", l.Kind, l.Name, shortID(l.ID), l.Run, l.Owner)
}

func shortID(id string) string {
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// List returns every container (running or not) and network with LabelWorld; with run set, only
// those of that run.
func List(ctx context.Context, run string) ([]Leftover, error) {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("container: docker client: %w", err)
	}
	defer cli.Close()
	return list(ctx, cli.Client, run)
}

func list(ctx context.Context, cli *client.Client, run string) ([]Leftover, error) {
	f := client.Filters{}
	f.Add("label", LabelWorld)
	if run != "" {
		f.Add("label", LabelRun+"="+run)
	}
	cs, err := cli.ContainerList(ctx, client.ContainerListOptions{All: true, Filters: f})
	if err != nil {
		return nil, fmt.Errorf("container: list containers: %w", err)
	}
	var out []Leftover
	for _, c := range cs.Items {
		name := ""
		if len(c.Names) > 0 {
			name = strings.TrimPrefix(c.Names[0], "/")
		}
		out = append(out, Leftover{Kind: "container", ID: c.ID, Name: name, Run: c.Labels[LabelRun], Owner: c.Labels[LabelOwner]})
	}
	ns, err := cli.NetworkList(ctx, client.NetworkListOptions{Filters: f})
	if err != nil {
		return nil, fmt.Errorf("container: list networks: %w", err)
	}
	for _, n := range ns.Items {
		out = append(out, Leftover{Kind: "network", ID: n.ID, Name: n.Name, Run: n.Labels[LabelRun], Owner: n.Labels[LabelOwner]})
	}
	return out, nil
}

// Sweep removes the containers, then the networks, that crashed runs left: those with LabelWorld whose
// owner process (on this host) is gone. Processes of a live run, this one's siblings included, are
// never touched. It returns what it removed.
func Sweep(ctx context.Context) ([]Leftover, error) {
	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return nil, fmt.Errorf("container: sweep: docker client: %w", err)
	}
	defer cli.Close()
	all, err := list(ctx, cli.Client, "")
	if err != nil {
		return nil, fmt.Errorf("container: sweep: %w", err)
	}
	var removed []Leftover
	var errs []error
	// Containers first: a network with endpoints cannot be removed.
	for _, kind := range []string{"container", "network"} {
		for _, l := range all {
			if l.Kind != kind || !ownerGone(l.Owner) {
				continue
			}
			if err := remove(ctx, cli.Client, l); err != nil {
				errs = append(errs, err)
				continue
			}
			removed = append(removed, l)
		}
	}
	return removed, errors.Join(errs...)
}

func remove(ctx context.Context, cli *client.Client, l Leftover) error {
	var err error
	if l.Kind == "container" {
		_, err = cli.ContainerRemove(ctx, l.ID, client.ContainerRemoveOptions{Force: true, RemoveVolumes: true})
	} else {
		_, err = cli.NetworkRemove(ctx, l.ID, client.NetworkRemoveOptions{})
	}
	if err != nil && !strings.Contains(strings.ToLower(err.Error()), "no such") {
		return fmt.Errorf("container: remove %s: %w", l, err)
	}
	return nil
}
