//go:build patchconf_pre131

package main

import "k8s.io/apimachinery/pkg/util/managedfields"

// builtinTypeConverter: before client-go v0.31 (Kubernetes 1.31) no public function gives
// the built-in kinds' structured-merge-diff schema (it is internal to client-go), so this
// build serves server-side-apply cases of custom kinds only. The build script selects this
// file with -tags patchconf_pre131 for releases before 1.31.
func builtinTypeConverter() (managedfields.TypeConverter, string) {
	return nil, "server-side apply of built-in kinds needs client-go 1.31 or later (applyconfigurations.NewTypeConverter)"
}
