package specs

import (
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/trapline/trapline/harness"
	"github.com/trapline/trapline/results"
	"github.com/trapline/trapline/traps"
)

// The session boundary (seed 002): the storage-state file a run starts from is a secret. Its values
// never reach an artifact, and the file itself is never copied into the evidence.
var _ = Describe("the session boundary's storage state", Label("credentials", "trap:session-boundary"), func() {
	It("is never written into the evidence", func(ctx SpecContext) {
		t, err := traps.Lookup("session-boundary")
		Expect(err).NotTo(HaveOccurred())
		// Its own evidence folder: the catalog's guarded arm of the same trap may run at the same time in
		// the other process, and a run clears its folder first. Not a report entry either: the catalog's
		// arm is the trap's verdict; this run is only read for what its evidence holds.
		opts := referenceRun(filepath.Join(env.out, "evidence-session"))
		opts.Video = env.video
		res, err := harness.Run(ctx, opts, t, results.Guarded)
		if err != nil {
			Fail(fmt.Sprintf("the session-boundary run could not be carried out: %v", err))
		}
		Expect(res.EvidenceDir).To(ContainNoSecret(traps.SessionBoundarySecret, false))
		var copies []string
		Expect(filepath.WalkDir(res.EvidenceDir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && strings.Contains(d.Name(), "storage-state") {
				copies = append(copies, p)
			}
			return err
		})).To(Succeed())
		Expect(copies).To(BeEmpty(), "a storage-state file was copied into the evidence")
	}, SpecTimeout(2*time.Minute))
})
