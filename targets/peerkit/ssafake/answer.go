package ssafake

import (
	"bytes"
	"encoding/json"
	"fmt"

	"patchconf.dev/targets/peerkit"
)

// Capabilities are what a fake declares: server-side apply only, with Kubernetes' own
// messages; schemas are the peer's to say.
func Capabilities(schemas ...string) peerkit.Capabilities {
	return peerkit.Capabilities{PatchTypes: []string{"server-side-apply"}, Schemas: schemas,
		Profile: "kubernetes", Messages: true}
}

type caseResult struct {
	Steps []StepResult `json:"steps"`
}

// Answer answers a request's case with run: server-side-apply cases only, decoded with
// numbers kept exact.
func Answer(peer string, raw json.RawMessage, run func(*Case) ([]StepResult, string, error)) peerkit.Answer {
	var c Case
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	if err := decoder.Decode(&c); err != nil {
		return peerkit.Fail("unclassified", fmt.Errorf("unreadable case: %v", err))
	}
	if c.Type != "server-side-apply" {
		return peerkit.Skip(fmt.Sprintf("%s runs server-side-apply cases only, not %q", peer, c.Type))
	}
	steps, skip, err := run(&c)
	switch {
	case skip != "":
		return peerkit.Skip(skip)
	case err != nil:
		return peerkit.Fail("unclassified", err)
	}
	return peerkit.Result(caseResult{Steps: steps})
}
