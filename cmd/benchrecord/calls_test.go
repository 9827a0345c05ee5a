package main

import (
	"archive/zip"
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// writeTrace writes a trace.zip holding lines as trace.trace under dir.
func writeTrace(t *testing.T, dir string, lines ...string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	w, err := zw.Create("trace.trace")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Write([]byte(strings.Join(lines, "\n") + "\n")); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "trace.zip"), buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestCallsSumsEachCallOverTheArms: two arms' traces, each call's wall time summed by class and
// method over both, the longest first, as benchmark lines benchrecord records; a call without its
// end is not counted.
func TestCallsSumsEachCallOverTheArms(t *testing.T) {
	root := t.TempDir()
	writeTrace(t, filepath.Join(root, "decoy-delete", "guarded"),
		`{"version":10,"type":"context-options"}`,
		`{"type":"before","callId":"a@1","startTime":100,"class":"Frame","method":"ariaSnapshot"}`,
		`{"type":"log","callId":"a@1","message":"waiting"}`,
		`{"type":"after","callId":"a@1","endTime":130}`,
		`{"type":"before","callId":"a@2","startTime":140,"class":"Frame","method":"click"}`,
		`{"type":"after","callId":"a@2","endTime":240}`,
		`{"type":"before","callId":"a@3","startTime":250,"class":"Frame","method":"goto"}`)
	writeTrace(t, filepath.Join(root, "decoy-delete", "control"),
		`{"type":"before","callId":"b@1","startTime":0,"class":"Frame","method":"ariaSnapshot"}`,
		`{"type":"after","callId":"b@1","endTime":50}`)
	var out, errb bytes.Buffer
	if code := callsMain([]string{root}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	want := "BenchmarkTraceCalls/Frame.click\t1\t100000000 ns/op\t1 calls\t100.0 ms/call\t0.10 s\t55.6 %\t2 arms\n" +
		"BenchmarkTraceCalls/Frame.ariaSnapshot\t1\t80000000 ns/op\t2 calls\t40.0 ms/call\t0.08 s\t44.4 %\t2 arms\n"
	if out.String() != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out.String(), want)
	}
	res, err := parse(strings.NewReader(out.String()))
	if err != nil || res.Benchmarks["BenchmarkTraceCalls/Frame.click"]["calls"].Median != 1 {
		t.Fatalf("the lines do not record: %v, %+v", err, res.Benchmarks)
	}
}

// TestCallsNamesATraceItCannotRead: a broken trace is an error naming its file and line, never a
// total that silently leaves an arm out; a folder without traces is an error too.
func TestCallsNamesATraceItCannotRead(t *testing.T) {
	root := t.TempDir()
	writeTrace(t, filepath.Join(root, "arm"), `{"type":"before","callId":"a@1","startTime":1,"class":"Frame","method":"click"}`, `{not json`)
	var out, errb bytes.Buffer
	if code := callsMain([]string{root}, &out, &errb); code == 0 || !strings.Contains(errb.String(), filepath.Join(root, "arm", "trace.zip")) || !strings.Contains(errb.String(), "line 2") {
		t.Fatalf("exit %d, stderr %q; want an error naming the archive and line 2", code, errb.String())
	}
	errb.Reset()
	if code := callsMain([]string{t.TempDir()}, &out, &errb); code == 0 || !strings.Contains(errb.String(), "no trace.zip") {
		t.Fatalf("exit %d, stderr %q; want no trace.zip", code, errb.String())
	}
}
