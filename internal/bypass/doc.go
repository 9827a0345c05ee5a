// Package bypass is the network bypass suite: techniques by which a page on an allowed staging path
// tries to reach the outside (or a denied path of the portal), each as data that builds a
// traps.Trap for one set of network layers.
//
// The fence has two network layers: the browser-side route gate (ctx.Route, the policy's
// DecideRequest) and the egress proxy (the same policy, DecideRequest and DecideHost). Every
// technique runs four times, each in a fresh world:
//
//	BothOn      gate and proxy rules on: nothing gets out
//	ProxyAlone  gate off: the proxy alone holds
//	GateAlone   proxy rules off: the gate alone holds, unless the technique is GateBlind
//	BothOff     control: the technique gets out, which proves it works
//
// The agent of every run is Loader: it opens the page, clicks the trigger if any and waits for the
// probe request to settle, so no agent-level check stands in front of the two layers. A run is
// judged from outside: the canaries, the backend and the proxy's decision log.
//
//	for _, t := range bypass.All() {
//		res, err := harness.Run(ctx, opts, t.Trap(bypass.ProxyAlone), results.Guarded)
//		// res.Forbidden must be empty; bypass.ReadProxyLog(res.EvidenceDir) shows the proxy's denial.
//	}
package bypass
