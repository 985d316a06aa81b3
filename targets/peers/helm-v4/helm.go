package main

// Helm 4's client-side calls: Client.Build for both manifests (validation off: the loopback
// endpoint publishes no OpenAPI), then Client.Update(original, target, ...) with the options
// `helm upgrade --server-side=false` passes (pkg/action/upgrade.go: ForceReplace(false),
// ServerSideApply(false, false), UpgradeClientSideFieldManager(false)); its createPatch is
// Helm's answer. As Helm 3's, a three-way strategic merge patch (overwrite=true) for kinds of
// its scheme and a two-way JSON merge patch for the others (ThreeWayMergeForUnstructured is
// not set by helm upgrade).

import (
	"bytes"
	"encoding/json"

	"helm.sh/helm/v4/pkg/kube"
	"k8s.io/cli-runtime/pkg/genericclioptions"
)

const (
	libraryModule = "helm.sh/helm/v4"
	homepage      = "https://pkg.go.dev/helm.sh/helm/v4/pkg/kube"
)

// updateObjects is helmupgrade.Update with Helm 4's client in its client-side mode.
func updateObjects(getter genericclioptions.RESTClientGetter, original, modified json.RawMessage, originalGiven bool) error {
	client := kube.New(getter)
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
