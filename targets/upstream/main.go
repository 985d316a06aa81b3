// Command upstream is a patchconf target (harness/PROTOCOL.md) that answers every case with
// the functions Kubernetes itself calls: gopkg.in/evanphx/json-patch.v4 for JSON Patch and
// JSON merge patch, k8s.io/apimachinery's jsonmergepatch and strategicpatch for three-way
// merge patches and strategic merge patches, and kubectl's own apply helpers for client-side
// apply. It adds no patch logic of its own: it decodes the request, hands the libraries the
// JSON bytes kubectl would, and reports what they return (or the error they raise, mapped
// onto patchconf's error classes).
package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
	"sort"
	"strings"
)

const protocolVersion = 1

// patchTypes are the case types this program answers with upstream code; a full build adds
// server-side-apply (full.go).
var patchTypes = []string{
	"json-patch", "merge-patch", "merge-patch-2way", "merge-patch-3way",
	"strategic", "strategic-2way", "strategic-3way", "apply",
}

// modes are what `upstream MODE ARGS...` runs instead of the protocol: bench (bench.go) and, in
// a full build, decode (full.go).
var modes = map[string]func(args []string, stdout, stderr io.Writer) int{"bench": runBench}

// request is one protocol line from the harness.
type request struct {
	Cmd      string          `json:"cmd"`
	Protocol json.RawMessage `json:"protocol,omitempty"`
	Seq      json.RawMessage `json:"seq,omitempty"`
	Case     json.RawMessage `json:"case,omitempty"`
}

// response is one answer line. Exactly one of Result, Error and Skipped is set.
type response struct {
	Seq     json.RawMessage `json:"seq"`
	Result  *result         `json:"result,omitempty"`
	Error   *caseError      `json:"error,omitempty"`
	Skipped *string         `json:"skipped,omitempty"`
}

type result struct {
	Patch    json.RawMessage `json:"patch,omitempty"`
	Document json.RawMessage `json:"document,omitempty"`
	Steps    []interface{}   `json:"steps,omitempty"` // server-side-apply: one result per step
}

type caseError struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}

type handshake struct {
	Ready          bool           `json:"ready"`
	Protocol       int            `json:"protocol"`
	Implementation implementation `json:"implementation"`
	Capabilities   capabilities   `json:"capabilities"`
}

type implementation struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Language string `json:"language"`
}

type capabilities struct {
	PatchTypes []string `json:"patch_types"`
	Schemas    []string `json:"schemas"`
	Profile    string   `json:"profile"`
	Messages   bool     `json:"messages"`
}

// handleLine answers one request line. stop is true after the "stop" command.
func handleLine(line []byte) (answer []byte, stop bool) {
	var req request
	decoder := json.NewDecoder(bytes.NewReader(line))
	decoder.UseNumber()
	if err := decoder.Decode(&req); err != nil {
		return encode(response{Seq: json.RawMessage("null"), Error: &caseError{
			Class: "unclassified", Message: fmt.Sprintf("patchconf-upstream: unreadable request: %v", err)}}), false
	}
	switch req.Cmd {
	case "start":
		return encode(handshake{
			Ready:    true,
			Protocol: protocolVersion,
			Implementation: implementation{
				Name:     "upstream",
				Version:  kubernetesVersion(),
				Language: "go",
			},
			Capabilities: capabilities{
				PatchTypes: patchTypes,
				Schemas:    []string{"builtin", "named", "none"},
				Profile:    "kubernetes",
				Messages:   true,
			},
		}), false
	case "stop":
		return nil, true
	case "run":
		seq := req.Seq
		if len(seq) == 0 {
			seq = json.RawMessage("null")
		}
		return encode(runCase(seq, req.Case)), false
	default:
		seq := req.Seq
		if len(seq) == 0 {
			seq = json.RawMessage("null")
		}
		return encode(response{Seq: seq, Error: &caseError{
			Class: "unclassified", Message: fmt.Sprintf("patchconf-upstream: unknown command %q", req.Cmd)}}), false
	}
}

// runCase answers one "run" request, turning a panic inside upstream code into an error
// answer (upstream's own failure is the answer; the program itself stays up).
func runCase(seq json.RawMessage, raw json.RawMessage) (resp response) {
	resp.Seq = seq
	defer func() {
		if recovered := recover(); recovered != nil {
			resp.Result, resp.Skipped = nil, nil
			resp.Error = &caseError{Class: "unclassified", Message: fmt.Sprintf("panic: %v", recovered)}
		}
	}()
	c, err := parseCase(raw)
	if err != nil {
		resp.Error = &caseError{Class: "unclassified", Message: fmt.Sprintf("patchconf-upstream: %v", err)}
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
		// Only reachable if a library returned bytes that are not JSON.
		buf.Reset()
		fallback := response{Seq: json.RawMessage("null"), Error: &caseError{
			Class: "unclassified", Message: fmt.Sprintf("patchconf-upstream: cannot encode the answer: %v", err)}}
		if r, ok := v.(response); ok {
			fallback.Seq = r.Seq
		}
		_ = json.NewEncoder(&buf).Encode(fallback)
	}
	return buf.Bytes() // Encode ends the line with '\n'
}

// moduleVersion is the version of a module the binary was built with ("" if unknown).
func moduleVersion(path string) string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	for _, dep := range info.Deps {
		if dep.Path == path {
			if dep.Replace != nil && dep.Replace.Version != "" {
				return dep.Replace.Version
			}
			return dep.Version
		}
	}
	return ""
}

// kubernetesVersion maps the k8s.io/apimachinery module version (v0.X.Y) onto the
// Kubernetes release it belongs to (1.X.Y).
func kubernetesVersion() string {
	v := moduleVersion("k8s.io/apimachinery")
	if strings.HasPrefix(v, "v0.") {
		return "1." + strings.TrimPrefix(v, "v0.")
	}
	if v == "" {
		return "unknown"
	}
	return strings.TrimPrefix(v, "v")
}

// logOutput receives the program's own log lines (stderr; the harness keeps the last ones).
var logOutput io.Writer = os.Stderr

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
	if len(os.Args) > 1 {
		mode, known := modes[os.Args[1]]
		if !known {
			fmt.Fprintf(os.Stderr, "patchconf-upstream: no mode %q in this build (it has: %s; decode and "+
				"server-side apply need the full build, without -tags patchconf_patch)\n", os.Args[1], modeNames())
			os.Exit(2)
		}
		os.Exit(mode(os.Args[2:], os.Stdout, os.Stderr))
	}
	fmt.Fprintf(os.Stderr, "patchconf-upstream: kubernetes %s (k8s.io/apimachinery %s, json-patch %s, kube-openapi %s; %s)\n",
		kubernetesVersion(), moduleVersion("k8s.io/apimachinery"),
		moduleVersion("gopkg.in/evanphx/json-patch.v4"), moduleVersion("k8s.io/kube-openapi"), strings.Join(patchTypes, " "))
	if err := serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "patchconf-upstream: %v\n", err)
		os.Exit(1)
	}
}

func modeNames() string {
	names := make([]string, 0, len(modes))
	for name := range modes {
		names = append(names, name)
	}
	sort.Strings(names)
	return strings.Join(names, ", ")
}
