package container

import (
	"archive/tar"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"

	"github.com/moby/moby/client"
	"github.com/testcontainers/testcontainers-go"
)

// ImageRepo is the repository of the world image; the tag is the first 12 hex digits of the binary's
// SHA-256, so one build of the code maps to one image and parallel runs of different code never share
// a tag.
const ImageRepo = "trapline-world"

// LabelImage marks the world images ("1"), for removing old ones by hand:
// docker image rm $(docker images -q --filter label=trapline.image).
const LabelImage = "trapline.image"

// binaryPath is where the static binary sits in the image.
const binaryPath = "/trapline"

const dockerfile = `FROM scratch
COPY trapline /trapline
ENTRYPOINT ["/trapline"]
`

// BuildImage builds the world image once: `go build` of cmd/trapline with CGO_ENABLED=0 into a temp
// dir (run from anywhere inside the module), then an image FROM scratch around that one static binary,
// tagged ImageRepo:<hash of the binary>. When an image with that tag exists it is reused. Nothing is
// pulled: scratch is not an image. It returns the image reference.
//
// The build uses the test builds' compile flags (no -trimpath; -ldflags only changes the link), so under
// the Makefile, which exports CGO_ENABLED=0 for every go command, it reuses the packages make test
// compiled instead of compiling the module and the standard library a second time. The price: the
// binary holds the checkout's path, so two checkouts of the same code build two images.
//
// environ is the go build's environment (CGO_ENABLED=0 and GOOS=linux are added): the caller passes
// os.Environ(), which holds the Go toolchain's settings (HOME, GOPATH, GOCACHE, GOFLAGS, ...). nil is
// an error, not an empty environment, in which go would find no cache or module folder.
func BuildImage(ctx context.Context, environ []string) (string, error) {
	if environ == nil {
		return "", errors.New("container: build image: no environment for go build (pass os.Environ())")
	}
	dir, err := os.MkdirTemp("", "trapline-image-")
	if err != nil {
		return "", fmt.Errorf("container: build image: %w", err)
	}
	defer os.RemoveAll(dir)
	bin := filepath.Join(dir, "trapline")
	cmd := exec.CommandContext(ctx, "go", "build", "-ldflags=-s -w", "-o", bin, "github.com/trapline/trapline/cmd/trapline")
	cmd.Env = append(slices.Clip(environ), "CGO_ENABLED=0", "GOOS=linux")
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("container: go build cmd/trapline (CGO_ENABLED=0): %w\n%s", err, out)
	}
	data, err := os.ReadFile(bin)
	if err != nil {
		return "", fmt.Errorf("container: build image: %w", err)
	}
	sum := sha256.Sum256(data)
	ref := ImageRepo + ":" + hex.EncodeToString(sum[:6])

	cli, err := testcontainers.NewDockerClientWithOpts(ctx)
	if err != nil {
		return "", fmt.Errorf("container: build image: docker client: %w", err)
	}
	defer cli.Close()
	if _, err := cli.ImageInspect(ctx, ref); err == nil {
		return ref, nil
	}
	buildCtx, err := tarContext(map[string][]byte{"Dockerfile": []byte(dockerfile), "trapline": data})
	if err != nil {
		return "", fmt.Errorf("container: build image: %w", err)
	}
	res, err := cli.ImageBuild(ctx, buildCtx, client.ImageBuildOptions{Tags: []string{ref}, Dockerfile: "Dockerfile",
		Remove: true, ForceRemove: true, Labels: map[string]string{LabelImage: "1"}})
	if err != nil {
		return "", fmt.Errorf("container: build image %s: %w", ref, err)
	}
	defer res.Body.Close()
	if err := buildErr(res.Body); err != nil {
		return "", fmt.Errorf("container: build image %s: %w", ref, err)
	}
	if _, err := cli.ImageInspect(ctx, ref); err != nil {
		return "", fmt.Errorf("container: build image %s: not there after the build: %w", ref, err)
	}
	return ref, nil
}

// buildErr reads the build's JSON message stream to its end and returns the first error it reports.
func buildErr(r io.Reader) error {
	dec := json.NewDecoder(r)
	var log strings.Builder
	for {
		var m struct {
			Stream      string `json:"stream"`
			Error       string `json:"error"`
			ErrorDetail struct {
				Message string `json:"message"`
			} `json:"errorDetail"`
		}
		if err := dec.Decode(&m); err == io.EOF {
			return nil
		} else if err != nil {
			return fmt.Errorf("read build output: %w", err)
		}
		log.WriteString(m.Stream)
		if m.Error != "" {
			return fmt.Errorf("%s\n%s", m.Error, log.String())
		}
	}
}

// tarContext packs files into a build context, in name order; every file but the Dockerfile is made
// executable (the binaries).
func tarContext(files map[string][]byte) (io.Reader, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, name := range slices.Sorted(maps.Keys(files)) {
		mode := int64(0o755)
		if name == "Dockerfile" {
			mode = 0o644
		}
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: mode, Size: int64(len(files[name]))}); err != nil {
			return nil, err
		}
		if _, err := tw.Write(files[name]); err != nil {
			return nil, err
		}
	}
	if err := tw.Close(); err != nil {
		return nil, err
	}
	return &buf, nil
}
