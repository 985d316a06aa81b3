// Command helm-v3 is a patchconf peer target (harness/PROTOCOL.md): Helm 3's own kube
// client (helm.sh/helm/v3/pkg/kube) updating one object as `helm upgrade` does, against a
// loopback endpoint in this process that serves discovery and the live object and records
// the PATCH Helm sends (endpoint.go). The answer is Helm's patch and the object after it;
// nothing of Helm's computation is reimplemented here. See README.md.
package main

import (
	"encoding/json"
	"fmt"

	"patchconf.dev/targets/peerkit"
)

func main() {
	version := peerkit.ModuleVersion(libraryModule)
	loopback = newEndpoint()
	defer loopback.server.Close()
	peerkit.Peer{
		Implementation: peerkit.Implementation{Name: "helm-v3", Version: version, Language: "go",
			Homepage: homepage, Category: "tool", Kubernetes: kubernetesRelease()},
		Capabilities: peerkit.Capabilities{PatchTypes: clientSideTypes, Schemas: []string{"builtin", "none"},
			Profile: "kubernetes", Messages: false},
		Answer: func(raw json.RawMessage) peerkit.Answer { return answerThreeWay(raw) },
	}.Main(fmt.Sprintf("%s %s (%s against a loopback endpoint)", libraryModule, version, callName))
}
