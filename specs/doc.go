// Package specs holds trapline's Ginkgo suites: every trap of the catalog in two arms, asserted from
// outside the agent (backend effects, canary hits, the proxy log, the violation log).
//
// Run them with `make test` or `make demo`, or directly:
//
//	bin/ginkgo -p --label-filter=destructive ./specs
package specs
