// Command helm-v3 is a patchconf peer target (harness/PROTOCOL.md): Helm 3's own kube
// client (helm.sh/helm/v3/pkg/kube) updating one object as `helm upgrade` does, against a
// loopback endpoint in this process that serves discovery and the live object and records
// the PATCH Helm sends (targets/peerkit/helmupgrade, shared with helm-v4; helm.go is Helm 3's
// calls). The answer is Helm's patch and the object after it; nothing of Helm's computation
// is reimplemented here. See README.md.
package main

import (
	"encoding/json"
	"fmt"

	"patchconf.dev/targets/peerkit"
	"patchconf.dev/targets/peerkit/helmupgrade"
)

func main() {
	version := peerkit.ModuleVersion(libraryModule)
	loopback := helmupgrade.NewEndpoint()
	defer loopback.Close()
	peerkit.Peer{
		// Kubernetes: the release of the modules Helm was built with (its strategic merge code).
		Implementation: peerkit.Implementation{Name: "helm-v3", Version: version, Language: "go",
			Homepage: homepage, Category: "tool", Kubernetes: peerkit.KubernetesRelease("k8s.io/apimachinery")},
		Capabilities: peerkit.Capabilities{PatchTypes: helmupgrade.CaseTypes, Schemas: []string{"builtin", "none"},
			Profile: "kubernetes", Messages: false},
		Answer: func(raw json.RawMessage) peerkit.Answer { return loopback.Answer(raw, updateObjects) },
	}.Main(fmt.Sprintf("%s %s (%s against a loopback endpoint)", libraryModule, version, callName))
}
