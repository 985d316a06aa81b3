//go:build patchconf_pre130 && !patchconf_patch

package main

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/csaupgrade"
)

// upgradeManagedFieldsPatch: csaupgrade.UpgradeManagedFieldsPatch, which before client-go
// v0.30 has no options and upgrades only entries without a subresource. The build script
// selects this file with -tags patchconf_pre130 for releases before 1.30.
func upgradeManagedFieldsPatch(obj runtime.Object, csaManagers sets.Set[string], ssaManager, subresource string) ([]byte, error) {
	if subresource != "" {
		return nil, fmt.Errorf("csaupgrade.Subresource(%q) needs client-go v0.30 or later", subresource)
	}
	return csaupgrade.UpgradeManagedFieldsPatch(obj, csaManagers, ssaManager)
}

// migrationSkip: a csa-upgrade step of a subresource's entries needs the Subresource option.
func migrationSkip(steps []ssaStep) string {
	for n, s := range steps {
		if s.Op == "csa-upgrade" && s.Subresource != "" {
			return fmt.Sprintf("step %d: csaupgrade.Subresource needs client-go v0.30 or later (Kubernetes 1.30)", n+1)
		}
	}
	return ""
}
