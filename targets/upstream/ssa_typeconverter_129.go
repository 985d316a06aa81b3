//go:build patchconf_pre131 && !patchconf_pre129 && !patchconf_patch

package main

import (
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/structured-merge-diff/v4/typed"
)

// ObjectToTyped as apimachinery v0.29 and v0.30 declare it: the field manager passes
// typed.AllowDuplicates when it parses live objects.
func (c schemaTypeConverter) ObjectToTyped(obj runtime.Object, opts ...typed.ValidationOptions) (*typed.TypedValue, error) {
	return c.typed(obj, func(t typed.ParseableType, content interface{}, structured bool) (*typed.TypedValue, error) {
		if structured {
			return t.FromStructured(content, opts...)
		}
		return t.FromUnstructured(content, opts...)
	})
}
