package container

import (
	"context"
	"fmt"
	"os"
	"time"
)

// Prepared is what a run decides once, before any world starts: the world mode, why, the engine, and
// in container mode the image and the run's label. Parallel processes of one run share it (it is
// plain data).
type Prepared struct {
	Mode   Mode   `json:"mode"`
	Why    string `json:"why"`
	Engine Engine `json:"engine"`
	Image  string `json:"image,omitempty"`
	Run    string `json:"run,omitempty"`
}

// Prepare resolves m on e (auto asks the engine); in container mode it then sweeps what crashed runs
// left, builds the world image (BuildImage, its go build run in environ) and names the run. Call it
// once per run (one process); each process then makes its own launcher with Launcher.
func Prepare(ctx context.Context, m Mode, e Engine, environ []string) (Prepared, error) {
	mode, why, err := Resolve(ctx, m, e)
	if err != nil {
		return Prepared{}, err
	}
	p := Prepared{Mode: mode, Why: why, Engine: e}
	if mode != ModeContainer {
		return p, nil
	}
	swept, err := Sweep(ctx)
	if err != nil {
		return Prepared{}, fmt.Errorf("sweep leftovers of crashed runs: %w", err)
	}
	if len(swept) > 0 {
		p.Why += fmt.Sprintf("; swept %d leftover(s) of crashed runs", len(swept))
	}
	if p.Image, err = BuildImage(ctx, environ); err != nil {
		return Prepared{}, err
	}
	p.Run = fmt.Sprintf("%d-%d", time.Now().UnixNano(), os.Getpid())
	return p, nil
}

// Launcher returns this process's container launcher for the prepared run, or nil in embedded mode.
func (p Prepared) Launcher() (*Launcher, error) {
	if p.Mode != ModeContainer {
		return nil, nil
	}
	Setup(p.Engine) // this process's testcontainers configuration
	return New(Config{Image: p.Image, Run: p.Run, PublishIP: p.Engine.Publish()})
}

// CheckNoneLeft fails when any container or network labelled with run still exists.
func CheckNoneLeft(ctx context.Context, run string) error {
	left, err := List(ctx, run)
	if err != nil {
		return err
	}
	if len(left) > 0 {
		return fmt.Errorf("containers or networks of run %s left behind: %v", run, left)
	}
	return nil
}
