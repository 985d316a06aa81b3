// Package peerkit is the protocol half of a patchconf Go peer (harness/PROTOCOL.md): the
// handshake, the request loop, a panic turned into the case's answer, and answers written
// as the library produced them. A peer supplies who it is, what it can run, and one
// function that answers a case; everything else is here, the same for every peer.
package peerkit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"runtime/debug"
)

// ProtocolVersion is the version of harness/PROTOCOL.md this kit speaks.
const ProtocolVersion = 1

// Implementation is the handshake's `implementation`.
type Implementation struct {
	Name     string `json:"name"`
	Version  string `json:"version"`
	Language string `json:"language"`
	Homepage string `json:"homepage,omitempty"`
	// Category is "tool" for a program users' objects pass through (Helm, Argo CD, Flux);
	// empty means a library. The compliance matrix groups tools apart.
	Category string `json:"category,omitempty"`
	// Kubernetes is the release whose behaviour the program has ("1.23.1"), when Version is
	// not one (a tool vendoring Kubernetes' modules): divergences' versions match against it.
	Kubernetes string `json:"kubernetes,omitempty"`
}

// Capabilities is the handshake's `capabilities`.
type Capabilities struct {
	PatchTypes []string `json:"patch_types"`
	Schemas    []string `json:"schemas"`
	Profile    string   `json:"profile"`
	Messages   bool     `json:"messages"`
	// Answers is what its results hold when not both document and patch: ["document"] for a
	// tool that only predicts the resulting object (it is judged on the document alone).
	Answers []string `json:"answers,omitempty"`
	// Renders is set by the kit when the peer has a Render function.
	Renders bool `json:"renders,omitempty"`
}

// Error is a case's `error` answer.
type Error struct {
	Class   string `json:"class"`
	Message string `json:"message"`
}

// Answer is what a peer says about one case: exactly one of Result, Error and Skipped.
type Answer struct {
	Result  interface{}
	Error   *Error
	Skipped string
}

// Result answers with the case's `result` object.
func Result(result interface{}) Answer { return Answer{Result: result} }

// Fail answers with an error of the corpus's class `class`.
func Fail(class string, err error) Answer {
	return Answer{Error: &Error{Class: class, Message: err.Error()}}
}

// Skip declines the case, saying why.
func Skip(reason string) Answer { return Answer{Skipped: reason} }

// Peer is one library behind the protocol.
type Peer struct {
	Implementation Implementation
	Capabilities   Capabilities
	// Answer answers one case, given the request's `case` as the exact JSON text the
	// harness sent (so numbers reach the library untouched).
	Answer func(c json.RawMessage) Answer
	// Render, when set, answers "render" requests (PROTOCOL.md section 2a): the expected
	// document as the peer's own normalization shows objects, given the request's case and
	// that document as the harness sent them. The handshake then says renders: true.
	Render func(c json.RawMessage, document json.RawMessage) (interface{}, error)
}

type request struct {
	Cmd      string          `json:"cmd"`
	Seq      json.RawMessage `json:"seq,omitempty"`
	Case     json.RawMessage `json:"case,omitempty"`
	Document json.RawMessage `json:"document,omitempty"`
}

type rendered struct {
	Seq      json.RawMessage `json:"seq"`
	Document interface{}     `json:"document"`
}

type response struct {
	Seq     json.RawMessage `json:"seq"`
	Result  interface{}     `json:"result,omitempty"`
	Error   *Error          `json:"error,omitempty"`
	Skipped *string         `json:"skipped,omitempty"`
}

type handshake struct {
	Ready          bool           `json:"ready"`
	Protocol       int            `json:"protocol"`
	Implementation Implementation `json:"implementation"`
	Capabilities   Capabilities   `json:"capabilities"`
}

// Main serves stdin and stdout after writing banner to stderr, and exits 1 if the
// conversation breaks (a closed pipe, an unreadable stream).
func (p Peer) Main(banner string) {
	fmt.Fprintf(os.Stderr, "patchconf peer: %s\n", banner)
	if err := p.Serve(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintf(os.Stderr, "patchconf peer: %v\n", err)
		os.Exit(1)
	}
}

// Serve answers request lines from in on out, one line each, until `stop` or the end of in.
func (p Peer) Serve(in io.Reader, out io.Writer) error {
	reader := bufio.NewReaderSize(in, 1<<20)
	writer := bufio.NewWriter(out)
	for {
		line, readErr := reader.ReadBytes('\n')
		if len(bytes.TrimSpace(line)) > 0 {
			answer, stop := p.handleLine(line)
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

func (p Peer) handleLine(line []byte) (answer []byte, stop bool) {
	var req request
	if err := json.Unmarshal(line, &req); err != nil {
		return encode(response{Seq: json.RawMessage("null"), Error: &Error{
			Class: "unclassified", Message: fmt.Sprintf("unreadable request: %v", err)}}), false
	}
	seq := req.Seq
	if len(seq) == 0 {
		seq = json.RawMessage("null")
	}
	switch req.Cmd {
	case "start":
		capabilities := p.Capabilities
		capabilities.Renders = p.Render != nil
		return encode(handshake{Ready: true, Protocol: ProtocolVersion,
			Implementation: p.Implementation, Capabilities: capabilities}), false
	case "stop":
		return nil, true
	case "run":
		return encode(p.runCase(seq, req.Case)), false
	case "render":
		if p.Render != nil {
			return p.render(seq, req.Case, req.Document), false
		}
	}
	return encode(response{Seq: seq, Error: &Error{
		Class: "unclassified", Message: fmt.Sprintf("unknown command %q", req.Cmd)}}), false
}

// runCase answers one case; a panic in the library is its answer, not the program's end.
func (p Peer) runCase(seq, raw json.RawMessage) (resp response) {
	resp.Seq = seq
	defer func() {
		if recovered := recover(); recovered != nil {
			resp.Result, resp.Skipped = nil, nil
			resp.Error = &Error{Class: "unclassified", Message: fmt.Sprintf("panic: %v", recovered)}
		}
	}()
	answer := p.Answer(raw)
	switch {
	case answer.Skipped != "":
		resp.Skipped = &answer.Skipped
	case answer.Error != nil:
		resp.Error = answer.Error
	case answer.Result != nil:
		resp.Result = answer.Result
	default:
		resp.Error = &Error{Class: "unclassified", Message: "the peer gave no answer"}
	}
	return resp
}

// render answers a render request; a failure (or a panic) is an error answer, which the
// harness takes for a protocol error of the case, as section 2a says.
func (p Peer) render(seq, raw, document json.RawMessage) (line []byte) {
	defer func() {
		if recovered := recover(); recovered != nil {
			line = encode(response{Seq: seq, Error: &Error{Class: "unclassified", Message: fmt.Sprintf("render: panic: %v", recovered)}})
		}
	}()
	shown, err := p.Render(raw, document)
	if err != nil {
		return encode(response{Seq: seq, Error: &Error{Class: "unclassified", Message: fmt.Sprintf("render: %v", err)}})
	}
	return encode(rendered{Seq: seq, Document: shown})
}

// encode writes one answer line; an answer that is not JSON (the library returned bytes
// that are not) becomes an error answer for the same case, never a broken line.
func encode(v interface{}) []byte {
	var buf bytes.Buffer
	encoder := json.NewEncoder(&buf)
	encoder.SetEscapeHTML(false)
	if err := encoder.Encode(v); err != nil {
		buf.Reset()
		fallback := response{Seq: json.RawMessage("null"), Error: &Error{
			Class: "unclassified", Message: fmt.Sprintf("the library's output is not JSON: %v", err)}}
		if r, ok := v.(response); ok {
			fallback.Seq = r.Seq
		}
		_ = json.NewEncoder(&buf).Encode(fallback)
	}
	return buf.Bytes()
}

// ModuleVersion is the version of module path this binary was built with ("unknown"
// when the build carries no module information).
func ModuleVersion(path string) string {
	if info, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range info.Deps {
			if dep.Path == path {
				return dep.Version
			}
		}
	}
	return "unknown"
}

// KubernetesRelease is the Kubernetes release 1.X.Y of the k8s.io module path (released as
// v0.X.Y) this binary was built with, for the handshake's `kubernetes` ("" when unknown).
func KubernetesRelease(path string) string {
	return kubernetesRelease(ModuleVersion(path))
}

func kubernetesRelease(moduleVersion string) string {
	var minor, patch int
	if _, err := fmt.Sscanf(moduleVersion, "v0.%d.%d", &minor, &patch); err != nil {
		return ""
	}
	return fmt.Sprintf("1.%d.%d", minor, patch)
}
