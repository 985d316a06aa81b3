//go:build patchconf_pre131 && !patchconf_patch

package main

import (
	_ "embed"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kubectl/pkg/scheme"
	"sigs.k8s.io/structured-merge-diff/v4/typed"
)

// clientGoSchema is the structured-merge-diff schema of the built-in kinds generated into
// the release's client-go (applyconfigurations/internal/internal.go, its schemaYAML). That
// package is internal to client-go and before v0.31 no public function hands it out, so the
// build script copies the text out of the release's module into this file.
//
//go:embed clientgo-schema.yaml
var clientGoSchema string

var clientGoParser = sync.OnceValues(func() (*typed.Parser, error) {
	return typed.NewParser(typed.YAMLObject(clientGoSchema))
})

// builtinTypeConverter types built-in kinds with client-go's schema as client-go v0.31's
// applyconfigurations.NewTypeConverter does (k8s.io/client-go/testing.TypeConverter): the
// Go type's OpenAPI name through kubectl's scheme, then the parser's type of that name.
func builtinTypeConverter() (managedfields.TypeConverter, string) {
	parser, err := clientGoParser()
	if err != nil {
		return nil, fmt.Sprintf("client-go's schema of the built-in kinds does not parse: %v", err)
	}
	return schemaTypeConverter{parser}, ""
}

// schemaTypeConverter repeats client-go v0.31's testing.TypeConverter; ObjectToTyped, whose
// signature changed in apimachinery v0.29, is in ssa_typeconverter_*.go.
type schemaTypeConverter struct {
	parser *typed.Parser
}

func (c schemaTypeConverter) parseableType(obj runtime.Object) (typed.ParseableType, error) {
	example, err := scheme.Scheme.New(obj.GetObjectKind().GroupVersionKind())
	if err != nil {
		return typed.ParseableType{}, err
	}
	goType := reflect.TypeOf(example).Elem()
	return c.parser.Type(openAPIName(goType.PkgPath() + "." + goType.Name())), nil
}

func (schemaTypeConverter) TypedToObject(value *typed.TypedValue) (runtime.Object, error) {
	content, ok := value.AsValue().Unstructured().(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("failed to convert value to unstructured for type %T", value.AsValue().Unstructured())
	}
	return &unstructured.Unstructured{Object: content}, nil
}

// openAPIName is kube-openapi's friendlyName: k8s.io/api/apps/v1.Deployment becomes
// io.k8s.api.apps.v1.Deployment.
func openAPIName(name string) string {
	parts := strings.Split(name, "/")
	if len(parts) > 0 && strings.Contains(parts[0], ".") {
		host := strings.Split(parts[0], ".")
		for i, j := 0, len(host)-1; i < j; i, j = i+1, j-1 {
			host[i], host[j] = host[j], host[i]
		}
		parts[0] = strings.Join(host, ".")
	}
	return strings.Join(parts, ".")
}

// typed parses an object as client-go v0.31's TypeConverter does: unstructured content, else
// the Go value.
func (c schemaTypeConverter) typed(obj runtime.Object,
	parse func(t typed.ParseableType, content interface{}, structured bool) (*typed.TypedValue, error)) (*typed.TypedValue, error) {
	t, err := c.parseableType(obj)
	if err != nil {
		return nil, err
	}
	if u, ok := obj.(*unstructured.Unstructured); ok {
		return parse(t, u.UnstructuredContent(), false)
	}
	return parse(t, obj, true)
}
