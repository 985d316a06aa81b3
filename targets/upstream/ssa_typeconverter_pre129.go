//go:build patchconf_pre131 && patchconf_pre129 && !patchconf_patch

package main

import (
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v4/typed"
)

// ObjectToTyped as apimachinery before v0.29 declares it: no validation options (live
// objects are parsed as strictly as apply configurations).
func (c schemaTypeConverter) ObjectToTyped(obj runtime.Object) (*typed.TypedValue, error) {
	return c.typed(obj, func(t typed.ParseableType, content interface{}, structured bool) (*typed.TypedValue, error) {
		if structured {
			return t.FromStructured(content)
		}
		return t.FromUnstructured(content)
	})
}
