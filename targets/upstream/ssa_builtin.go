//go:build !patchconf_pre131 && !patchconf_patch

package main

import (
	"sync"

	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/client-go/applyconfigurations"
	"k8s.io/kubectl/pkg/scheme"
)

var builtinConverter = sync.OnceValue(func() managedfields.TypeConverter {
	return applyconfigurations.NewTypeConverter(scheme.Scheme)
})

// builtinTypeConverter types built-in kinds with client-go's structured-merge-diff schema
// (applyconfigurations/internal, generated from Kubernetes' OpenAPI with defaults such as
// ContainerPort.protocol's TCP), the Go type's name found through kubectl's scheme. It exists
// since client-go v0.31; older releases build ssa_builtin_pre131.go instead.
func builtinTypeConverter() (managedfields.TypeConverter, string) {
	return builtinConverter(), ""
}
