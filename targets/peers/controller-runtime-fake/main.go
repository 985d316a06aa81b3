// Command controller-runtime-fake is a patchconf peer target (harness/PROTOCOL.md): it
// answers server-side apply cases with controller-runtime's fake client,
// sigs.k8s.io/controller-runtime/pkg/client/fake (server-side apply since
// kubernetes-sigs/controller-runtime#2981, on client-go's FieldManagedObjectTracker), built
// with WithReturnManagedFields so managedFields are visible. Each case gets a fresh client
// seeded with the case's `current` object (WithObjects); each step is a call a controller
// makes (Apply, Update, Patch, or the same on Status()), and the object is read back with
// Get. It is a peer for the compliance matrix, not a judge: where the fake departs from a
// real API server, that is its answer, reported as the harness finds it.
package main

import (
	"encoding/json"
	"fmt"

	"patchconf.dev/targets/peerkit"
	"patchconf.dev/targets/peerkit/ssafake"
)

const libraryModule = "sigs.k8s.io/controller-runtime"

func main() {
	version := peerkit.ModuleVersion(libraryModule)
	peerkit.Peer{
		Implementation: peerkit.Implementation{Name: "controller-runtime-fake", Version: version, Language: "go",
			Homepage: "https://pkg.go.dev/sigs.k8s.io/controller-runtime/pkg/client/fake"},
		// builtin: client-go's scheme and type converter (the fake's defaults); named: a
		// custom kind typed by a converter built from the case's definitions
		// (WithTypeConverters); none: a case that starts with no object names its kind only
		// in its steps, and a custom kind without a schema gets the fake's deduced converter.
		Capabilities: ssafake.Capabilities("builtin", "named", "none"),
		Answer:       func(raw json.RawMessage) peerkit.Answer { return ssafake.Answer("controller-runtime-fake", raw, run) },
	}.Main(fmt.Sprintf("%s %s (pkg/client/fake)", libraryModule, version))
}
