package container

import (
	"io"
	"log"
	"os"

	tclog "github.com/testcontainers/testcontainers-go/log"
)

// Setup prepares testcontainers for trapline, before its first use (it reads its configuration
// once):
//   - TESTCONTAINERS_RYUK_DISABLED=true when unset: no Ryuk reaper container (it would be pulled from
//     a registry); cleanup is ours, by label (see Sweep);
//   - TESTCONTAINERS_HOST_OVERRIDE=127.0.0.1 when unset and e is a local socket, so that published
//     ports are reached on loopback and nothing else;
//   - testcontainers' own chatter goes nowhere (errors still come back as errors).
//
// Variables already set are left alone (a remote engine sets its own host). These two are the only
// process environment this package touches, because testcontainers takes them from nowhere else: the
// reaper switch from its internal configuration, read once from the environment or
// ~/.testcontainers.properties, and the host override from os.LookupEnv in DockerProvider.DaemonHost,
// neither with an option (testcontainers-go v0.45.0).
func Setup(e Engine) {
	if _, ok := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !ok {
		_ = os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true")
	}
	if _, ok := os.LookupEnv("TESTCONTAINERS_HOST_OVERRIDE"); !ok && e.Local() {
		_ = os.Setenv("TESTCONTAINERS_HOST_OVERRIDE", "127.0.0.1")
	}
	tclog.SetDefault(log.New(io.Discard, "", 0))
}
