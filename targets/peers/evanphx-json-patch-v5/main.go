// Command evanphx-json-patch-v5 is a patchconf peer target (harness/PROTOCOL.md): it answers
// JSON Patch and JSON merge patch cases with github.com/evanphx/json-patch/v5, called the
// way its users call it (DecodePatch + Apply with the library's default options, MergePatch,
// CreateMergePatch). It is a peer for the compliance matrix, not a judge: where it departs
// from the corpus, that is its answer, reported as the harness finds it.
package main

import (
	"encoding/json"
	"fmt"

	"patchconf.dev/targets/peerkit"
)

const libraryModule = "github.com/evanphx/json-patch/v5"

type result struct {
	Patch    json.RawMessage `json:"patch,omitempty"`
	Document json.RawMessage `json:"document,omitempty"`
}

// patchCase holds a case's inputs as the exact JSON text the harness sent (a nil slice:
// absent; the text "null": present and null), so numbers reach the library untouched.
type patchCase struct {
	ID       string          `json:"id"`
	Type     string          `json:"type"`
	Original json.RawMessage `json:"original"`
	Patch    json.RawMessage `json:"patch"`
	Modified json.RawMessage `json:"modified"`
}

func answer(raw json.RawMessage) peerkit.Answer {
	var c patchCase
	if err := json.Unmarshal(raw, &c); err != nil {
		return peerkit.Fail("unclassified", fmt.Errorf("unreadable case: %v", err))
	}
	return c.run()
}

func main() {
	version := peerkit.ModuleVersion(libraryModule)
	peerkit.Peer{
		Implementation: peerkit.Implementation{Name: "evanphx-json-patch-v5", Version: version, Language: "go",
			Homepage: "https://github.com/evanphx/json-patch"},
		Capabilities: peerkit.Capabilities{PatchTypes: patchTypes, Schemas: []string{"none"},
			// The library implements RFC 6902 / RFC 7396, not Kubernetes' variant of them, so
			// cases with an RFC outcome judge it by that (its default options still accept
			// negative array indices: that is one of its answers).
			Profile: "rfc", Messages: false},
		Answer: answer,
	}.Main(libraryModule + " " + version)
}
