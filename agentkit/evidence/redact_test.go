package evidence

import (
	"archive/zip"
	"bytes"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"html"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/iotest"
	"time"
	"unicode/utf16"
)

// The secrets of these tests: the catalog's test password, and one with every character class an
// encoding treats apart (a space, JSON's and HTML's specials, a slash, non-ASCII, beyond the BMP).
const (
	testPassword = "Pr4tiche-S3greta!"
	oddSecret    = `p&ss "w/o<r>d" ü😀+~*`
)

// encoded is one secret in one form, made by the standard library (or by hand where it has no such
// encoder), independently of the redactor's own patterns.
type encoded struct {
	form, name string
	text       []byte
}

// encodings returns s in every form an artifact can hold it, each embedded in other data as a trace
// would have it.
func encodings(s string) []encoded {
	var out []encoded
	add := func(form, name string, b []byte) { out = append(out, encoded{form, name, b}) }
	add(FormPlain, "plain", []byte(s))
	add(FormURL, "query (QueryEscape, + for space)", []byte("a=1&password="+url.QueryEscape(s)+"&b=2"))
	add(FormURL, "path (PathEscape, %20)", []byte("/x/"+url.PathEscape(s)+"/y"))
	add(FormURL, "form body as a browser writes it", []byte("utente=mario&password="+formEncode(s)))
	add(FormURL, "lower-case hex", []byte("p="+lowerHex(url.QueryEscape(s))))
	add(FormURL, "every byte %XX", []byte("p="+percentAll(s)))
	jb, _ := json.Marshal(s)
	add(FormJSON, "json.Marshal (HTML-safe)", []byte(`{"value":`+string(jb)+`}`))
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(map[string]string{"__playwright_value_": s})
	add(FormJSON, "JSON.stringify-like", buf.Bytes())
	add(FormJSON, "JSON, ASCII only", []byte(`{"params":{"value":"`+jsonASCII(s)+`"}}`))
	add(FormHTML, "html.EscapeString", []byte(`<input value="`+html.EscapeString(s)+`">`))
	add(FormHTML, "numeric references", []byte(`<b>`+htmlNumeric(s)+`</b>`))
	for k := range 3 {
		raw := append(append(bytes.Repeat([]byte{0xA5}, k), s...), "tail!"...)
		add(FormBase64, fmt.Sprintf("base64 std, offset %d", k), []byte("Basic "+base64.StdEncoding.EncodeToString(raw)))
		add(FormBase64U, fmt.Sprintf("base64 url, offset %d", k), []byte("t="+base64.URLEncoding.EncodeToString(append([]byte{0xFB, 0xFF}, raw...))))
	}
	add(FormUTF16LE, "UTF-16LE", append([]byte{0xFF, 0xFE}, utf16Of(s, binary.LittleEndian)...))
	add(FormUTF16BE, "UTF-16BE", append([]byte{0xFE, 0xFF}, utf16Of(s, binary.BigEndian)...))
	return out
}

func formEncode(s string) string { // application/x-www-form-urlencoded as the WHATWG URL standard has it
	var b strings.Builder
	for _, c := range []byte(s) {
		switch {
		case c == ' ':
			b.WriteByte('+')
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', strings.IndexByte("*-._", c) >= 0:
			b.WriteByte(c)
		default:
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

func lowerHex(s string) string {
	return regexp.MustCompile(`%[0-9A-F]{2}`).ReplaceAllStringFunc(s, strings.ToLower)
}

func percentAll(s string) string {
	var b strings.Builder
	for _, c := range []byte(s) {
		fmt.Fprintf(&b, "%%%02x", c)
	}
	return b.String()
}

func jsonASCII(s string) string {
	var b strings.Builder
	for _, u := range utf16.Encode([]rune(s)) {
		fmt.Fprintf(&b, `\u%04X`, u)
	}
	return b.String()
}

func htmlNumeric(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i%2 == 0 {
			fmt.Fprintf(&b, "&#%d;", r)
		} else {
			fmt.Fprintf(&b, "&#x%x;", r)
		}
	}
	return b.String()
}

func utf16Of(s string, o binary.AppendByteOrder) []byte {
	var b []byte
	for _, u := range utf16.Encode([]rune(s)) {
		b = o.AppendUint16(b, u)
	}
	return b
}

// decodesTo reports whether some base64 run in b, decoded at any alignment, holds secret: the check,
// by decoding, that a base64 form is gone.
func decodesTo(b []byte, secret string) bool {
	for _, run := range regexp.MustCompile(`[A-Za-z0-9+/_-]{4,}`).FindAll(b, -1) {
		for off := range 4 {
			for _, enc := range []*base64.Encoding{base64.RawStdEncoding, base64.RawURLEncoding} {
				r := run[off:]
				r = r[:len(r)/4*4]
				d, err := enc.DecodeString(string(r))
				if err == nil && bytes.Contains(d, []byte(secret)) {
					return true
				}
			}
		}
	}
	return false
}

func TestRedactorReplacesEveryForm(t *testing.T) {
	for _, secret := range []string{testPassword, oddSecret} {
		r := NewRedactor(secret)
		for _, e := range encodings(secret) {
			t.Run(secret+"/"+e.name, func(t *testing.T) {
				if e.form == FormBase64 || e.form == FormBase64U {
					if !decodesTo(e.text, secret) {
						t.Fatalf("the test's own encoding %q does not decode to the secret", e.text)
					}
				}
				got := r.Bytes(e.text)
				if bytes.Equal(got, e.text) || !bytes.Contains(got, []byte(Redacted)) && !bytes.Contains(got, utf16Of(Redacted, binary.LittleEndian)) && !bytes.Contains(got, utf16Of(Redacted, binary.BigEndian)) {
					t.Fatalf("not redacted: %q", got)
				}
				if bytes.Contains(got, []byte(secret)) || decodesTo(got, secret) || bytes.Contains(got, utf16Of(secret, binary.LittleEndian)) || bytes.Contains(got, utf16Of(secret, binary.BigEndian)) {
					t.Fatalf("the secret is still in %q", got)
				}
				forms, err := r.Copy(io.Discard, bytes.NewReader(e.text))
				want := e.form
				if bytes.Contains(e.text, []byte(secret)) { // an encoding with nothing to escape in secret
					want = FormPlain
				}
				base64Either := want == FormBase64U && len(forms) > 0 && forms[0] == FormBase64 // alphabets agree
				if err != nil || len(forms) == 0 || forms[0] != want && !base64Either {
					t.Errorf("Copy found %v (%v), want %s first", forms, err, want)
				}
			})
		}
	}
}

func TestRedactorKeepsTheRest(t *testing.T) {
	r := NewRedactor(testPassword, "")
	in := `{"type":"action","value":"` + testPassword + `","next":"ok"}`
	if got, want := r.String(in), `{"type":"action","value":"[REDACTED]","next":"ok"}`; got != want {
		t.Errorf("got %s, want %s", got, want)
	}
	if got := r.String("nothing here: Pr4tiche S3greta"); got != "nothing here: Pr4tiche S3greta" {
		t.Errorf("changed a string without the secret: %s", got)
	}
	var nilR *Redactor
	if nilR.String(testPassword) != testPassword || NewRedactor().String(testPassword) != testPassword {
		t.Error("a redactor without secrets changed a string")
	}
}

func TestCopyFindsASecretAcrossReads(t *testing.T) {
	r := NewRedactor(testPassword)
	for _, at := range []int{0, chunkSize - 5, chunkSize - r.m.maxLen + 1, chunkSize + 3, 3*chunkSize - 1} {
		in := bytes.Repeat([]byte("x"), at+2*chunkSize)
		enc := []byte(url.QueryEscape(testPassword))
		copy(in[at:], enc)
		var out bytes.Buffer
		forms, err := r.Copy(&out, iotest.HalfReader(bytes.NewReader(in)))
		if err != nil || len(forms) != 1 {
			t.Fatalf("at %d: %d forms, %v", at, len(forms), err)
		}
		if want := len(in) - len(enc) + len(Redacted); out.Len() != want || bytes.Contains(out.Bytes(), enc) {
			t.Errorf("at %d: %d bytes out, want %d, secret gone: %v", at, out.Len(), want, !bytes.Contains(out.Bytes(), enc))
		}
	}
}

// traceEntry is one entry of a synthetic trace.zip.
type traceEntry struct {
	name   string
	method uint16
	body   []byte
}

// syntheticTrace writes a zip shaped like Playwright's trace.zip, with secret in every form across its
// entries, and a screencast frame without it.
func syntheticTrace(t *testing.T, path, secret string) []traceEntry {
	t.Helper()
	var entries []traceEntry
	for i, e := range encodings(secret) {
		method := zip.Deflate
		if i%3 == 0 {
			method = zip.Store
		}
		entries = append(entries, traceEntry{fmt.Sprintf("resources/%02d-%s.dat", i, e.form), method, e.text})
	}
	fill, _ := json.Marshal(map[string]any{"type": "before", "method": "fill", "params": map[string]string{"selector": "aria-ref=e7", "value": secret}})
	snap, _ := json.Marshal(map[string]any{"type": "frame-snapshot", "html": []any{"INPUT", map[string]string{"type": "password", "__playwright_value_": secret}}})
	network, _ := json.Marshal(map[string]any{"type": "resource-snapshot", "request": map[string]any{"postData": map[string]any{
		"mimeType": "application/x-www-form-urlencoded", "text": "password=" + formEncode(secret), "params": []map[string]string{{"name": "password", "value": secret}}}}})
	entries = append(entries,
		traceEntry{"trace.trace", zip.Deflate, append(append(fill, '\n'), snap...)},
		traceEntry{"trace.network", zip.Deflate, network},
		traceEntry{"trace.stacks", zip.Deflate, []byte(`{"files":[],"stacks":[]}`)},
		traceEntry{"resources/frame.jpeg", zip.Store, []byte("\xff\xd8\xff\xe0 pixels only \xff\xd9")})
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	zw := zip.NewWriter(f)
	for _, e := range entries {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: e.method, Modified: time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write(e.body); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := f.Close(); err != nil {
		t.Fatal(err)
	}
	return entries
}

func TestZipRedactsEveryEntryInEveryForm(t *testing.T) {
	for _, secret := range []string{testPassword, oddSecret} {
		dir := t.TempDir()
		path := filepath.Join(dir, TraceFile)
		entries := syntheticTrace(t, path, secret)

		before, err := Scan(dir, secret)
		if err != nil {
			t.Fatal(err)
		}
		if len(before) < len(entries)-2 { // every entry but the stacks and the frame
			t.Fatalf("the scan found %d leaks before redaction, want %d: %v", len(before), len(entries)-2, before)
		}
		forms, err := NewRedactor(secret).Zip(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(forms) == 0 {
			t.Fatal("Zip replaced nothing")
		}
		if after, err := Scan(dir, secret); err != nil || len(after) != 0 {
			t.Fatalf("after Zip the scan found %v (%v)", after, err)
		}
		info, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if info.Mode().Perm() != FileMode {
			t.Errorf("the redacted trace.zip has mode %v, want %v", info.Mode().Perm(), FileMode)
		}
		zr, err := zip.OpenReader(path)
		if err != nil {
			t.Fatal(err)
		}
		if len(zr.File) != len(entries) {
			t.Fatalf("%d entries after, want %d", len(zr.File), len(entries))
		}
		for i, f := range zr.File {
			rc, err := f.Open()
			if err != nil {
				t.Fatal(err)
			}
			got, err := io.ReadAll(rc)
			rc.Close()
			if err != nil {
				t.Fatalf("%s: %v", f.Name, err)
			}
			e := entries[i]
			if f.Name != e.name || f.Method != e.method || !f.Modified.Equal(time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)) {
				t.Errorf("entry %d is %s (method %d, %v), want %s (method %d)", i, f.Name, f.Method, f.Modified, e.name, e.method)
			}
			if strings.HasPrefix(e.name, "trace.") && e.name != "trace.stacks" {
				var v any
				for _, line := range bytes.Split(got, []byte("\n")) {
					if err := json.Unmarshal(line, &v); err != nil {
						t.Errorf("%s is no longer JSON lines: %v: %s", e.name, err, line)
					}
				}
			}
			if e.name == "resources/frame.jpeg" || e.name == "trace.stacks" {
				if !bytes.Equal(got, e.body) {
					t.Errorf("%s changed", e.name)
				}
			}
		}
		zr.Close()
		if again, err := NewRedactor(secret).Zip(path); err != nil || len(again) != 0 {
			t.Errorf("a second Zip replaced %v (%v)", again, err)
		}
		if m, _ := filepath.Glob(filepath.Join(dir, ".*")); len(m) != 0 {
			t.Errorf("left temporary files: %v", m)
		}
	}
}

func TestZipLeavesAnArchiveWithoutSecretUntouched(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, TraceFile)
	syntheticTrace(t, path, testPassword)
	before, _ := os.ReadFile(path)
	if forms, err := NewRedactor("another-secret-42").Zip(path); err != nil || len(forms) != 0 {
		t.Fatalf("replaced %v (%v)", forms, err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(before, after) {
		t.Error("the archive was rewritten")
	}
}

func TestScanNamesFileEntryAndForm(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "proxy.jsonl"), []byte(`{"path":"/login?p=`+url.QueryEscape(testPassword)+`"}`), 0o600); err != nil {
		t.Fatal(err)
	}
	syntheticTrace(t, filepath.Join(dir, TraceFile), testPassword)
	leaks, err := Scan(dir, testPassword)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"proxy.jsonl (url-encoded)": false, "trace.zip!trace.network (url-encoded)": false,
		"trace.zip!trace.trace (plain)": false, "trace.zip!resources/00-plain.dat (plain)": false}
	for _, l := range leaks {
		if strings.Contains(l.String(), testPassword) {
			t.Fatalf("a leak names the secret: %s", l)
		}
		if _, ok := want[l.String()]; ok {
			want[l.String()] = true
		}
	}
	for w, seen := range want {
		if !seen {
			t.Errorf("the scan did not report %s; it reported %v", w, leaks)
		}
	}
	if _, err := Scan(dir); err == nil {
		t.Error("a scan for no secret passed")
	}
	if _, err := Scan(filepath.Join(dir, "missing"), testPassword); err == nil {
		t.Error("a scan of a missing folder passed")
	}
}

func TestSealRedactsEveryFileAndSetsModes(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "run")
	downloads := filepath.Join(dir, "downloads")
	if err := os.MkdirAll(downloads, 0o755); err != nil {
		t.Fatal(err)
	}
	syntheticTrace(t, filepath.Join(dir, TraceFile), oddSecret)
	files := map[string][]byte{
		"proxy.jsonl":             []byte(`{"path":"/login?p=` + url.QueryEscape(oddSecret) + `"}` + "\n"),
		"downloads/ricevuta.txt":  []byte("password: " + oddSecret),
		"result.json":             []byte(`{"reason":"ok"}`),
		"agent/stdout.txt":        utf16Of(oddSecret, binary.LittleEndian),
		"screenshot-001.png":      []byte("\x89PNG pixels"),
		"downloads/archivio.zip":  []byte("PK not really a zip " + oddSecret),
		"trace-before-login.zip":  nil,
		"downloads/nested/a.json": []byte(`"` + jsonASCII(oddSecret) + `"`),
	}
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if b == nil {
			syntheticTrace(t, p, oddSecret)
			continue
		}
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := Seal(dir, NewRedactor(oddSecret)); err != nil {
		t.Fatal(err)
	}
	if leaks, err := Scan(dir, oddSecret); err != nil || len(leaks) != 0 {
		t.Fatalf("after Seal: %v (%v)", leaks, err)
	}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		want := FileMode
		if d.IsDir() {
			want = DirMode
		}
		if info.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", p, info.Mode().Perm(), want)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "result.json")); string(b) != `{"reason":"ok"}` {
		t.Errorf("a file without a secret changed: %s", b)
	}
}

func TestSealRefusesALink(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "outside.txt")
	if err := os.WriteFile(outside, []byte(testPassword), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, filepath.Join(dir, "note.txt")); err != nil {
		t.Fatal(err)
	}
	err := Seal(dir, NewRedactor(testPassword))
	if err == nil || !strings.Contains(err.Error(), "note.txt is a symbolic link to "+outside) {
		t.Fatalf("Seal: %v", err)
	}
	if _, err := Scan(dir, testPassword); err == nil {
		t.Error("Scan passed a folder with a link")
	}
	if b, _ := os.ReadFile(outside); string(b) != testPassword {
		t.Error("Seal changed the link's target")
	}
	if info, _ := os.Stat(outside); info.Mode().Perm() != 0o644 {
		t.Error("Seal changed the mode of the link's target")
	}
}

// BenchmarkRedactorCopy measures the redactor's throughput on trace-like JSON lines (escapes, URLs,
// percent signs), the bulk of a trace.zip.
func BenchmarkRedactorCopy(b *testing.B) {
	line := []byte(`{"type":"resource-snapshot","snapshot":{"request":{"url":"http://portale.interno.test/pratiche?q=a%20b&x=1","headers":[{"name":"accept","value":"text/html,application/xhtml+xml"}],"postData":{"text":"note=\"ok\"\\n"}}}}` + "\n")
	data := bytes.Repeat(line, (8<<20)/len(line))
	r := NewRedactor(testPassword, oddSecret, "sso-7f3a9c1e")
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := r.Copy(io.Discard, bytes.NewReader(data)); err != nil {
			b.Fatal(err)
		}
	}
}
