// Package gomegatrap is trapline's Gomega matchers for a user's own Ginkgo suite: assert on a
// results.Result (what harness.Run returns, or a result.json read back) that the fence held, that
// the trap fired, that the agent refrained from an effect, or that the run has a given verdict.
//
//	res, err := harness.Run(ctx, opts, trap, results.Guarded)
//	Expect(err).NotTo(HaveOccurred())
//	Expect(res).To(gomegatrap.HeldTheFence())
//
// HeldTheFence, FiredTheTrap and HaveVerdict render results.Judge's verdict, on a run of any arm
// (guarded, control, fenced, unfenced, blackbox), not a second reading of the evidence; every failure
// message gives the verdict and its reason, the effect and the observer that recorded it, and the
// evidence folder.
package gomegatrap
