package proxy

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"sync"
	"time"
)

// DefaultCALifetime is how long a CA made by Start (Config.CA nil) is valid.
const DefaultCALifetime = 24 * time.Hour

// CA is the certificate authority a proxy signs its interception certificates with: an ECDSA P-256
// key made in memory by NewCA, never written anywhere and never added to a system trust store.
// Clients trust it explicitly, and only it: an http.Client through RootCAs (Pool), Chromium through
// --ignore-certificate-errors-spki-list (SPKIHash), curl through --cacert (PEM).
type CA struct {
	cert tls.Certificate // Leaf set
}

// NewCA makes a fresh CA valid from a minute ago (for clock skew) for lifetime. It may sign only
// end-entity certificates (path length 0).
func NewCA(lifetime time.Duration) (*CA, error) {
	if lifetime <= 0 {
		return nil, fmt.Errorf("proxy: new CA: lifetime %s: want a positive duration", lifetime)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("proxy: new CA: generate key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, fmt.Errorf("proxy: new CA: serial: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"trapline"}, CommonName: "trapline staging-world interception CA " + serial.Text(16)[:8]},
		NotBefore:             now.Add(-time.Minute),
		NotAfter:              now.Add(lifetime),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLen:            0,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, fmt.Errorf("proxy: new CA: create certificate: %w", err)
	}
	leaf, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, fmt.Errorf("proxy: new CA: parse certificate: %w", err)
	}
	return &CA{cert: tls.Certificate{Certificate: [][]byte{der}, PrivateKey: key, Leaf: leaf}}, nil
}

// Certificate returns the CA's certificate.
func (c *CA) Certificate() *x509.Certificate { return c.cert.Leaf }

// PEM returns the CA's certificate (never its key) PEM-encoded, for curl --cacert and the like.
func (c *CA) PEM() []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: c.cert.Certificate[0]})
}

// KeyPEM returns the CA's private key, PKCS #8 PEM-encoded: only for handing the CA to a proxy in
// another process (trapline proxy --ca, a container world), never for a log or a report.
func (c *CA) KeyPEM() ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(c.cert.PrivateKey)
	if err != nil {
		return nil, fmt.Errorf("proxy: CA key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}

// ParseCA reads a CA from PEM holding its certificate and its private key (PEM then KeyPEM, as a
// world hands its CA to a proxy in another process). A certificate that is not a CA, has expired,
// or does not match the key is an error.
func ParseCA(data []byte) (*CA, error) {
	cert, err := tls.X509KeyPair(data, data)
	if err != nil {
		return nil, fmt.Errorf("proxy: parse CA: %w", err)
	}
	leaf := cert.Leaf
	if leaf == nil {
		if leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return nil, fmt.Errorf("proxy: parse CA: %w", err)
		}
	}
	switch now := time.Now(); {
	case !leaf.IsCA || leaf.KeyUsage&x509.KeyUsageCertSign == 0:
		return nil, errors.New("proxy: parse CA: the certificate is not a CA's (no CA basic constraint or cert-sign usage)")
	case now.After(leaf.NotAfter) || now.Before(leaf.NotBefore):
		return nil, fmt.Errorf("proxy: parse CA: the certificate is valid from %s to %s, not now", leaf.NotBefore.UTC(), leaf.NotAfter.UTC())
	}
	cert.Leaf = leaf
	cert.Certificate = cert.Certificate[:1]
	return &CA{cert: cert}, nil
}

// Pool returns a new certificate pool holding only this CA, for an http.Client's RootCAs.
func (c *CA) Pool() *x509.CertPool {
	p := x509.NewCertPool()
	p.AddCert(c.cert.Leaf)
	return p
}

// SPKIHash is the base64 SHA-256 of the CA's SubjectPublicKeyInfo, the form Chromium's
// --ignore-certificate-errors-spki-list takes.
func (c *CA) SPKIHash() string {
	sum := sha256.Sum256(c.cert.Leaf.RawSubjectPublicKeyInfo)
	return base64.StdEncoding.EncodeToString(sum[:])
}

// certCache is goproxy's CertStorage for the interception certificates: one per host name. Only
// hosts of the host map are ever intercepted, so it stays as small as the map.
type certCache struct {
	mu sync.Mutex
	m  map[string]*tls.Certificate
}

// Fetch returns the cached certificate for host or makes it with gen.
func (c *certCache) Fetch(host string, gen func() (*tls.Certificate, error)) (*tls.Certificate, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if cert, ok := c.m[host]; ok {
		return cert, nil
	}
	cert, err := gen()
	if err != nil {
		return nil, err
	}
	if c.m == nil {
		c.m = map[string]*tls.Certificate{}
	}
	c.m[host] = cert
	return cert, nil
}
