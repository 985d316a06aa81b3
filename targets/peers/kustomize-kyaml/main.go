// Command kustomize-kyaml is a patchconf peer target (harness/PROTOCOL.md): it answers
// strategic merge patch cases with kustomize's own strategic merge,
// sigs.k8s.io/kustomize/kyaml/yaml/merge2, called as kustomize's patchesStrategicMerge
// filter calls it, with the Kubernetes schema built into kyaml. It is a peer for the
// compliance matrix, not a judge: kyaml implements a subset of the directives
// ($patch: delete/replace/merge, but not $retainKeys, $setElementOrder or
// $deleteFromPrimitiveList), and where it departs from Kubernetes that is its answer.
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"

	"sigs.k8s.io/kustomize/kyaml/openapi"
)

const (
	protocolVersion = 1
	libraryModule   = "sigs.k8s.io/kustomize/kyaml"
)

type request struct {
	Cmd  string          `json:"cmd"`
	Seq  json.RawMessage `json:"seq,omitempty"`
	Case json.RawMessage `json:"case,omitempty"`
}

// response is one answer line; exactly one of Result, Error and Skipped is set.
type response struct {
	Seq     json.RawMessage `json:"seq"`
	Result  *result         `json:"result,omitempty"`
	Error   *caseError      `json:"error,omitempty"`
	Skipped *string         `json:"skipped,omitempty"`
}

type result struct {
	Patch    json.RawMessage `json:"patch,omitempty"`
	Document json.RawMessage `json:"document,omitempty"`
}

type caseError struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}

// patchCase holds a case's inputs as the exact JSON text the harness sent (a nil slice:
// absent; the text "null": present and null), so numbers reach the library untouched.
type patchCase struct {
	ID       string          `json:"id"`
	Type     string          `json:"type"`
	Original json.RawMessage `json:"original"`
	Patch    json.RawMessage `json:"patch"`
	Schema   *schemaRef      `json:"schema"`
}

// schemaRef is the request's `schema` for a built-in kind.
type schemaRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Named      string `json:"named"`
}

func handshake() interface{} {
	return map[string]interface{}{
		"ready": true, "protocol": protocolVersion,
		"implementation": map[string]string{
			"name": "kustomize-kyaml", "version": moduleVersion(libraryModule), "language": "go",
			"homepage": "https://github.com/kubernetes-sigs/kustomize/tree/master/kyaml",
		},
		"capabilities": map[string]interface{}{
			"patch_types": patchTypes,
			// Only the Kubernetes kinds of kyaml's built-in OpenAPI document; named schemas
			// would need kyaml's process-global custom schema, which this peer does not set.
			"schemas":  []string{"builtin"},
			"profile":  "kubernetes",
			"messages": false,
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
	var c patchCase
	if err := json.Unmarshal(raw, &c); err != nil {
		resp.Error = &caseError{Class: "unclassified", Message: fmt.Sprintf("unreadable case: %v", err)}
		return resp
	}
	out, skip, caseErr := c.run()
	switch {
	case skip != "":
		resp.Skipped = &skip
	case caseErr != nil:
		resp.Error = caseErr
	default:
		resp.Result = out
	}
	return resp
}

func encode(v interface{}) []byte {
	var buf bytes.Buffer
	encoder := json.NewEncoder(&buf)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(v); err != nil {
		// The library returned bytes that are not JSON: report that as its answer.
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
	fmt.Fprintf(os.Stderr, "patchconf peer: %s %s, built-in Kubernetes schema %s\n",
		libraryModule, moduleVersion(libraryModule), openapi.GetSchemaVersion())
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "patchconf peer: %v\n", err)
		os.Exit(1)
	}
}
