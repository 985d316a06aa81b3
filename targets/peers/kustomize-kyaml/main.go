// Command kustomize-kyaml is a patchconf peer target (harness/PROTOCOL.md): it answers
// strategic merge patch cases with kustomize's own strategic merge,
// sigs.k8s.io/kustomize/kyaml/yaml/merge2, called as kustomize's patchesStrategicMerge
// filter calls it, with the Kubernetes schema built into kyaml. It is a peer for the
// compliance matrix, not a judge: kyaml implements a subset of the directives
// ($patch: delete/replace/merge, but not $retainKeys, $setElementOrder or
// $deleteFromPrimitiveList), and where it departs from Kubernetes that is its answer.
package main

import (
	"encoding/json"
	"fmt"

	"patchconf.dev/targets/peerkit"
	"sigs.k8s.io/kustomize/kyaml/openapi"
)

const libraryModule = "sigs.k8s.io/kustomize/kyaml"

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
	Schema   *schemaRef      `json:"schema"`
}

// schemaRef is the request's `schema` for a built-in kind.
type schemaRef struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Named      string `json:"named"`
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
		Implementation: peerkit.Implementation{Name: "kustomize-kyaml", Version: version, Language: "go",
			Homepage: "https://github.com/kubernetes-sigs/kustomize/tree/master/kyaml"},
		Capabilities: peerkit.Capabilities{PatchTypes: patchTypes,
			// Only the Kubernetes kinds of kyaml's built-in OpenAPI document; named schemas
			// would need kyaml's process-global custom schema, which this peer does not set.
			Schemas: []string{"builtin"}, Profile: "kubernetes", Messages: false},
		Answer: answer,
	}.Main(fmt.Sprintf("%s %s, built-in Kubernetes schema %s", libraryModule, version, openapi.GetSchemaVersion()))
}
