package proxy

import (
	"strings"
	"testing"
)

func TestChromiumArgs(t *testing.T) {
	args := ChromiumArgs()
	want := []string{
		"--webrtc-ip-handling-policy=disable_non_proxied_udp", // APINOTES: the only setting with 0 UDP packets
		"--disable-quic",
		"--no-sandbox",
	}
	for _, w := range want {
		found := false
		for _, a := range args {
			found = found || a == w
		}
		if !found {
			t.Errorf("ChromiumArgs() lacks %s", w)
		}
	}
	for _, a := range args {
		// A second --disable-features/--enable-features would replace Playwright's own list.
		if strings.HasPrefix(a, "--disable-features") || strings.HasPrefix(a, "--enable-features") || strings.HasPrefix(a, "--proxy-") {
			t.Errorf("ChromiumArgs() contains %s", a)
		}
	}
	args[0] = "changed"
	if ChromiumArgs()[0] == "changed" {
		t.Error("ChromiumArgs() shares its slice between calls")
	}
}
