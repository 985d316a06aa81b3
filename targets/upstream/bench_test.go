package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBenchTimesStrategicMergePatchAndWritesItsAnswer(t *testing.T) {
	dir := t.TempDir()
	object := `{"apiVersion":"apps/v1","kind":"Deployment","spec":{"template":{"spec":{"containers":[` +
		`{"name":"a","image":"a:1","env":[{"name":"X","value":"1"},{"name":"Y","value":"2"}]}]}}}}`
	patch := `{"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:2","env":[{"name":"Y","value":"3"}]}]}}}}`
	for name, text := range map[string]string{"object.json": object, "patch.json": patch} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var stdout, stderr bytes.Buffer
	code := runBench([]string{"--object", filepath.Join(dir, "object.json"), "--patch", filepath.Join(dir, "patch.json"),
		"--repeat", "3", "--out", filepath.Join(dir, "out.json")}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d, stderr %q", code, stderr.String())
	}
	var got benchResult
	if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
		t.Fatalf("stdout %q: %v", stdout.String(), err)
	}
	if got.Repeat != 3 || len(got.TimingsMs) != 3 || got.MedianMs <= 0 || got.MinMs > got.MedianMs {
		t.Errorf("implausible figures: %+v", got)
	}
	if got.Kind != "apps/v1, Kind=Deployment" {
		t.Errorf("kind %q", got.Kind)
	}
	written, err := os.ReadFile(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"apiVersion":"apps/v1","kind":"Deployment","spec":{"template":{"spec":{"containers":[` +
		`{"env":[{"name":"X","value":"1"},{"name":"Y","value":"3"}],"image":"a:2","name":"a"}]}}}}`
	if string(written) != want {
		t.Errorf("patched document\n got %s\nwant %s", written, want)
	}
}

func TestBenchTimesPatchCreationAndWritesThePatch(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"original.json": `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"a":"1"}},` +
			`"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:1"}]}}}}`,
		"modified.json": `{"apiVersion":"apps/v1","kind":"Deployment",` +
			`"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:2"}]}}}}`,
		"current.json": `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"labels":{"a":"1"}},` +
			`"spec":{"template":{"spec":{"containers":[{"name":"a","image":"a:1"},{"name":"sidecar","image":"s"}]}}},` +
			`"status":{"replicas":1}}`,
	}
	for name, text := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	file := func(name string) string { return filepath.Join(dir, name) }
	for _, test := range []struct {
		op   string
		args []string
		want string
	}{
		{"two-way", []string{"--original", file("original.json"), "--modified", file("modified.json")},
			`{"metadata":null,"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"a"}],` +
				`"containers":[{"image":"a:2","name":"a"}]}}}}`},
		{"three-way", []string{"--original", file("original.json"), "--modified", file("modified.json"),
			"--current", file("current.json")},
			`{"metadata":null,"spec":{"template":{"spec":{"$setElementOrder/containers":[{"name":"a"}],` +
				`"containers":[{"image":"a:2","name":"a"}]}}}}`},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"--op", test.op, "--repeat", "2", "--out", file("out.json")}, test.args...)
		if code := runBench(args, &stdout, &stderr); code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", test.op, code, stderr.String())
		}
		var got benchResult
		if err := json.Unmarshal(stdout.Bytes(), &got); err != nil {
			t.Fatalf("%s: stdout %q: %v", test.op, stdout.String(), err)
		}
		if got.Op != test.op || len(got.TimingsMs) != 2 || got.Kind != "apps/v1, Kind=Deployment" {
			t.Errorf("%s: report %+v", test.op, got)
		}
		written, err := os.ReadFile(file("out.json"))
		if err != nil {
			t.Fatal(err)
		}
		if string(written) != test.want {
			t.Errorf("%s: patch\n got %s\nwant %s", test.op, written, test.want)
		}
	}
}

func TestBenchRejectsMissingArguments(t *testing.T) {
	var stdout, stderr bytes.Buffer
	if code := runBench([]string{"--object", "x.json"}, &stdout, &stderr); code != 2 {
		t.Errorf("exit %d, want 2", code)
	}
	if !strings.Contains(stderr.String(), "usage: upstream bench") {
		t.Errorf("stderr %q", stderr.String())
	}
	stderr.Reset()
	if code := runBench([]string{"--op", "three-way", "--original", "o.json", "--modified", "m.json"}, &stdout, &stderr); code != 2 {
		t.Errorf("three-way without --current: exit %d, want 2", code)
	}
	if code := runBench([]string{"--op", "merge", "--object", "o.json", "--patch", "p.json"}, &stdout, &stderr); code != 2 {
		t.Errorf("unknown op: exit %d, want 2", code)
	}
}
