package harness

import (
	"path/filepath"

	"github.com/trapline/trapline/world"
)

// ProxyLog is the world's proxy decision log of a black-box run (world.ProxyLogFile in the run's
// folder, whose agent/ folder is ArtifactsDir). In an embedded world it is written as the proxy
// decides, so an agent may read it when its program has ended (why its requests failed); a container
// world writes it when the world closes.
func (e Env) ProxyLog() string {
	return filepath.Join(filepath.Dir(e.ArtifactsDir), world.ProxyLogFile)
}
