// Package gomegatrap is trapline's Gomega matchers for a user's own Ginkgo suite: assert on a
// harness.Result that the fence held, that the trap fired, that the agent refrained from an effect.
//
//	res, err := harness.Run(ctx, opts, trap, harness.Guarded)
//	Expect(err).NotTo(HaveOccurred())
//	Expect(res).To(gomegatrap.HeldTheFence())
//
// HeldTheFence and FiredTheTrap are the harness's own verdict ((*harness.Result).Verdict), not a second
// reading of the evidence; every failure message names the effect, the observer that recorded it and
// the evidence folder.
package gomegatrap
