package proxy

import (
	"bytes"
	"strings"
	"testing"
	"time"
)

// TestCA: a fresh CA is an ECDSA P-256 CA valid for its lifetime only; its PEM carries no key; it
// round-trips through PEM+KeyPEM (how a world hands it to a proxy in another process), and ParseCA
// refuses a key of another CA and a certificate without its key.
func TestCA(t *testing.T) {
	ca, err := NewCA(time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	c := ca.Certificate()
	if !c.IsCA || !c.MaxPathLenZero || c.PublicKeyAlgorithm.String() != "ECDSA" || c.NotAfter.After(time.Now().Add(time.Hour+time.Minute)) {
		t.Errorf("certificate: CA %v, path len zero %v, key %s, until %s", c.IsCA, c.MaxPathLenZero, c.PublicKeyAlgorithm, c.NotAfter)
	}
	if bytes.Contains(ca.PEM(), []byte("PRIVATE KEY")) {
		t.Error("PEM() holds the key")
	}
	key, err := ca.KeyPEM()
	if err != nil {
		t.Fatal(err)
	}
	back, err := ParseCA(append(ca.PEM(), key...))
	if err != nil {
		t.Fatal(err)
	}
	if back.SPKIHash() != ca.SPKIHash() || !bytes.Equal(back.PEM(), ca.PEM()) {
		t.Error("the CA did not round-trip")
	}
	other, _ := NewCA(time.Hour)
	otherKey, _ := other.KeyPEM()
	for name, data := range map[string][]byte{"another CA's key": append(ca.PEM(), otherKey...), "no key": ca.PEM()} {
		if _, err := ParseCA(data); err == nil || !strings.Contains(err.Error(), "parse CA") {
			t.Errorf("%s: ParseCA error = %v, want a refusal", name, err)
		}
	}
	if _, err := NewCA(0); err == nil {
		t.Error("NewCA(0) made a CA")
	}
}
