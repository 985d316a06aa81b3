package main

// Helm 3's calls: Client.Build for both manifests (validation off, as `helm upgrade
// --disable-openapi-validation`: the endpoint publishes no OpenAPI), then
// Client.Update(original, target, force=false), the call `helm upgrade` makes
// (pkg/action/upgrade.go) — its createPatch is Helm's answer.

import (
	"bytes"
	"encoding/json"

	"strings"

	"helm.sh/helm/v3/pkg/kube"

	"patchconf.dev/targets/peerkit"
)

const (
	libraryModule = "helm.sh/helm/v3"
	homepage      = "https://pkg.go.dev/helm.sh/helm/v3/pkg/kube"
	callName      = "kube.Client.Update(original, target, force=false)"
)

// clientSideTypes are the flows Helm 3 implements: its createPatch is a three-way strategic
// merge patch (overwrite=true) for kinds of its scheme and a two-way JSON merge patch for
// the others.
var clientSideTypes = []string{"apply", "strategic-3way", "merge-patch-3way"}

func updateObjects(host string, original, modified json.RawMessage, originalGiven bool) error {
	client := kube.New(loopbackGetter{host: host})
	target, err := client.Build(bytes.NewReader(modified), false)
	if err != nil {
		return err
	}
	var previous kube.ResourceList
	if originalGiven {
		if previous, err = client.Build(bytes.NewReader(original), false); err != nil {
			return err
		}
	}
	_, err = client.Update(previous, target, false)
	return err
}

// kubernetesRelease is the Kubernetes release whose modules Helm was built with
// (k8s.io/apimachinery v0.37.0 -> 1.37.0): its strategic merge code is that release's.
func kubernetesRelease() string {
	version := peerkit.ModuleVersion("k8s.io/apimachinery")
	if rest, ok := strings.CutPrefix(version, "v0."); ok {
		return "1." + rest
	}
	return version
}
