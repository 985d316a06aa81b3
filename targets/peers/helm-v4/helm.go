package main

// Helm 4's client-side calls: Client.Build for both manifests (validation off: the loopback
// endpoint publishes no OpenAPI), then Client.Update(original, target, ...) with the options
// `helm upgrade --server-side=false` passes (pkg/action/upgrade.go: ForceReplace(false),
// ServerSideApply(false, false), UpgradeClientSideFieldManager(false)); its createPatch is
// Helm's answer.

import (
	"bytes"
	"encoding/json"
	"fmt"

	"helm.sh/helm/v4/pkg/kube"

	"patchconf.dev/targets/peerkit"
)

const (
	libraryModule = "helm.sh/helm/v4"
	homepage      = "https://pkg.go.dev/helm.sh/helm/v4/pkg/kube"
)

// clientSideTypes are the flows of Helm 4's client-side mode: as Helm 3's, a three-way
// strategic merge patch (overwrite=true) for kinds of its scheme and a two-way JSON merge
// patch for the others (ThreeWayMergeForUnstructured is not set by helm upgrade).
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
	_, err = client.Update(previous, target,
		kube.ClientUpdateOptionForceReplace(false),
		kube.ClientUpdateOptionServerSideApply(false, false),
		kube.ClientUpdateOptionUpgradeClientSideFieldManager(false))
	return err
}

// kubernetesRelease is the Kubernetes release whose modules Helm was built with
// (k8s.io/apimachinery v0.37.1 -> 1.37.1).
func kubernetesRelease() string {
	var minor, patch int
	if _, err := fmt.Sscanf(peerkit.ModuleVersion("k8s.io/apimachinery"), "v0.%d.%d", &minor, &patch); err != nil {
		return ""
	}
	return fmt.Sprintf("1.%d.%d", minor, patch)
}
