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
	"encoding/json"
	"fmt"

	"patchconf.dev/targets/peerkit"
	"patchconf.dev/targets/peerkit/ssafake"
)

const libraryModule = "k8s.io/client-go"

func main() {
	version := peerkit.ModuleVersion(libraryModule)
	peerkit.Peer{
		Implementation: peerkit.Implementation{Name: "client-go-fake", Version: version, Language: "go",
			Homepage: "https://pkg.go.dev/k8s.io/client-go/kubernetes/fake"},
		// The kinds of client-go's scheme, typed by its embedded structured-merge-diff
		// schema (applyconfigurations.NewTypeConverter). "none": a case that starts with no
		// object names its kind only in its steps; the peer finds it there (and skips kinds
		// outside the scheme with the reason).
		Capabilities: ssafake.Capabilities("builtin", "none"),
		Answer:       func(raw json.RawMessage) peerkit.Answer { return ssafake.Answer("client-go-fake", raw, run) },
	}.Main(fmt.Sprintf("%s %s (kubernetes/fake.NewClientset)", libraryModule, version))
}
