//go:build !patchconf_pre130 && !patchconf_patch

package main

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/client-go/util/csaupgrade"
)

// upgradeManagedFieldsPatch: csaupgrade.UpgradeManagedFieldsPatch, with the Subresource
// option (client-go v0.30+) when a subresource's entries are to be upgraded.
func upgradeManagedFieldsPatch(obj runtime.Object, csaManagers sets.Set[string], ssaManager, subresource string) ([]byte, error) {
	var options []csaupgrade.Option
	if subresource != "" {
		options = append(options, csaupgrade.Subresource(subresource))
	}
	return csaupgrade.UpgradeManagedFieldsPatch(obj, csaManagers, ssaManager, options...)
}

// migrationSkip: every step this build can run.
func migrationSkip([]ssaStep) string { return "" }
