// Command client-go-fake is a patchconf peer target (harness/PROTOCOL.md): it answers
// server-side apply cases with client-go's field-managed fake clientset,
// k8s.io/client-go/kubernetes/fake.NewClientset (client-go >= v0.31, built on
// testing.NewFieldManagedObjectTracker), the fake controller authors test against. Each
// case gets a fresh clientset seeded with the case's `current` object, and each step is
// sent through it as the typed clients send it (an apply patch, an update, a patch, on the
// object or on status); the object is read back with a Get. It is a peer for the
// compliance matrix, not a judge: where the fake departs from a real API server, that is
// its answer, reported as the harness finds it.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

const (
	protocolVersion = 1
	libraryModule   = "k8s.io/client-go"
)

type request struct {
	Cmd  string          `json:"cmd"`
	Seq  json.RawMessage `json:"seq,omitempty"`
	Case json.RawMessage `json:"case,omitempty"`
}

// response is one answer line; exactly one of Result, Error and Skipped is set.
type response struct {
	Seq     json.RawMessage `json:"seq"`
	Result  *caseResult     `json:"result,omitempty"`
	Error   *caseError      `json:"error,omitempty"`
	Skipped *string         `json:"skipped,omitempty"`
}

type caseResult struct {
	Steps []stepResult `json:"steps"`
}

type caseError struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}

func handshake() interface{} {
	return map[string]interface{}{
		"ready": true, "protocol": protocolVersion,
		"implementation": map[string]string{
			"name": "client-go-fake", "version": moduleVersion(libraryModule), "language": "go",
			"homepage": "https://pkg.go.dev/k8s.io/client-go/kubernetes/fake",
		},
		"capabilities": map[string]interface{}{
			"patch_types": []string{"server-side-apply"},
			// The kinds of client-go's scheme, typed by its embedded structured-merge-diff
			// schema (applyconfigurations.NewTypeConverter). "none": a case that starts with no
			// object names its kind only in its steps; the peer finds it there (and skips kinds
			// outside the scheme with the reason).
			"schemas":  []string{"builtin", "none"},
			"profile":  "kubernetes",
			"messages": true,
		},
	}
}

func handleLine(line []byte) (answer []byte, stop bool) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return encode(response{Seq: json.RawMessage("null"), Error: &caseError{
			Class: "unclassified", Message: fmt.Sprintf("unreadable request: %v", err)}}), false
	}
	seq := req.Seq
	if len(seq) == 0 {
		seq = json.RawMessage("null")
	}
	switch req.Cmd {
	case "start":
		return encode(handshake()), false
	case "stop":
		return nil, true
	case "run":
		return encode(runCase(seq, req.Case)), false
	}
	return encode(response{Seq: seq, Error: &caseError{
		Class: "unclassified", Message: fmt.Sprintf("unknown command %q", req.Cmd)}}), false
}

// runCase answers one case; a panic in the library is its answer, not the program's end.
func runCase(seq, raw json.RawMessage) (resp response) {
	resp.Seq = seq
	defer func() {
		if recovered := recover(); recovered != nil {
			resp.Result, resp.Skipped = nil, nil
			resp.Error = &caseError{Class: "unclassified", Message: fmt.Sprintf("panic: %v", recovered)}
		}
	}()
	var c ssaCase
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	if err := decoder.Decode(&c); err != nil {
		resp.Error = &caseError{Class: "unclassified", Message: fmt.Sprintf("unreadable case: %v", err)}
		return resp
	}
	if c.Type != "server-side-apply" {
		skip := fmt.Sprintf("client-go-fake runs server-side-apply cases only, not %q", c.Type)
		resp.Skipped = &skip
		return resp
	}
	steps, skip, err := c.run()
	switch {
	case skip != "":
		resp.Skipped = &skip
	case err != nil:
		resp.Error = &caseError{Class: "unclassified", Message: err.Error()}
	default:
		resp.Result = &caseResult{Steps: steps}
	}
	return resp
}

func encode(v interface{}) []byte {
	var buf bytes.Buffer
	encoder := json.NewEncoder(&buf)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(v); err != nil {
		buf.Reset()
		fallback := response{Seq: json.RawMessage("null"), Error: &caseError{
			Class: "unclassified", Message: fmt.Sprintf("the library's output is not JSON: %v", err)}}
		if r, ok := v.(response); ok {
			fallback.Seq = r.Seq
		}
		_ = json.NewEncoder(&buf).Encode(fallback)
	}
	return buf.Bytes()
}

func moduleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == path {
				return dep.Version
			}
		}
	}
	return "unknown"
}

func serve(in io.Reader, out io.Writer) error {
	reader := bufio.NewReaderSize(in, 1<<20)
	writer := bufio.NewWriter(out)
	for {
		line, readErr := reader.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			answer, stop := handleLine(line)
			if stop {
				return writer.Flush()
			}
			if _, err := writer.Write(answer); err != nil {
				return err
			}
			if err := writer.Flush(); err != nil {
				return err
			}
		}
		if readErr == io.EOF {
			return writer.Flush()
		}
		if readErr != nil {
			return readErr
		}
	}
}

func main() {
	fmt.Fprintf(os.Stderr, "patchconf peer: %s %s (kubernetes/fake.NewClientset)\n",
		libraryModule, moduleVersion(libraryModule))
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "patchconf peer: %v\n", err)
		os.Exit(1)
	}
}
