// Command gotypes writes, for every kind of kubectl's scheme, the Go shape of each field as
// runtime.DefaultUnstructuredConverter sees it: the JSON name, omitempty, and whether the field
// is a scalar, a struct (always encoded), a pointer, slice or map (nil encodes as null) or a
// type with its own JSON encoding (metav1.Time, resource.Quantity, intstr.IntOrString...).
// reference_impl/models/regenerate.py runs it; the reference's apiserver reads the output
// to round-trip built-in objects through their Go types as the server does.
package main

import (
	"encoding/json"
	"fmt"
	"os"
	"reflect"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/kubectl/pkg/scheme"
)

// shape is one Go type as the converter treats it.
type shape struct {
	Shape      string          `json:"shape"`                // string, int, float, bool, bytes, struct, pointer, slice, map, opaque
	Definition string          `json:"definition,omitempty"` // a struct's definition name
	Elem       *shape          `json:"elem,omitempty"`       // a pointer's, slice's or map's element
	Zero       json.RawMessage `json:"zero,omitempty"`       // an opaque type's zero value, as it encodes
	Named      string          `json:"named,omitempty"`      // a named map, slice or opaque type (core/v1 ResourceList, resource.Quantity)
}

type field struct {
	Name      string `json:"name"`
	OmitEmpty bool   `json:"omitempty,omitempty"`
	shape
}

var (
	marshaler   = reflect.TypeOf((*json.Marshaler)(nil)).Elem()
	definitions = map[string][]field{}
)

// definitionName spells a Go type as the OpenAPI models do: k8s.io/api/core/v1.Pod is
// io.k8s.api.core.v1.Pod.
func definitionName(t reflect.Type) string {
	path := strings.Split(t.PkgPath(), "/")
	host := strings.Split(path[0], ".")
	for i, j := 0, len(host)-1; i < j; i, j = i+1, j-1 {
		host[i], host[j] = host[j], host[i]
	}
	return strings.Join(append(host, path[1:]...), ".") + "." + t.Name()
}

func describe(t reflect.Type) shape {
	if t.Kind() != reflect.Pointer && (t.Implements(marshaler) || reflect.PointerTo(t).Implements(marshaler)) {
		if t.Kind() != reflect.Struct {
			panic(fmt.Sprintf("%v: a JSON marshaler that is not a struct", t))
		}
		zero, err := json.Marshal(reflect.New(t).Interface())
		if err != nil {
			panic(err)
		}
		return shape{Shape: "opaque", Zero: zero, Named: definitionName(t)}
	}
	switch t.Kind() {
	case reflect.String:
		return shape{Shape: "string"}
	case reflect.Bool:
		return shape{Shape: "bool"}
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return shape{Shape: "int"}
	case reflect.Float32, reflect.Float64:
		return shape{Shape: "float"}
	case reflect.Struct:
		name := definitionName(t)
		if _, seen := definitions[name]; !seen {
			definitions[name] = nil // mark before walking: types can be recursive (JSONSchemaProps)
			definitions[name] = fields(t)
		}
		return shape{Shape: "struct", Definition: name}
	case reflect.Pointer, reflect.Slice, reflect.Map:
		if t.Kind() == reflect.Slice && t.Elem().Kind() == reflect.Uint8 {
			return shape{Shape: "bytes"}
		}
		elem := describe(t.Elem())
		described := shape{Shape: map[reflect.Kind]string{reflect.Pointer: "pointer", reflect.Slice: "slice", reflect.Map: "map"}[t.Kind()], Elem: &elem}
		if t.Kind() != reflect.Pointer && t.Name() != "" {
			described.Named = definitionName(t)
		}
		return described
	case reflect.Interface:
		return shape{Shape: "opaque", Zero: json.RawMessage("null")}
	}
	panic(fmt.Sprintf("%v: unexpected kind %v", t, t.Kind()))
}

// fields: a struct's JSON members in order, inline members' own spliced in.
func fields(t reflect.Type) []field {
	out := []field{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, options, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" && (f.Anonymous || strings.Contains(options, "inline")) {
			out = append(out, fields(f.Type)...)
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, field{Name: name, OmitEmpty: strings.Contains(","+options+",", ",omitempty,"), shape: describe(f.Type)})
	}
	return out
}

func main() {
	kinds := map[string]string{}
	for gvk, t := range scheme.Scheme.AllKnownTypes() {
		if gvk.Version == runtime.APIVersionInternal || t.Kind() != reflect.Struct {
			continue
		}
		kinds[gvk.GroupVersion().String()+"/"+gvk.Kind] = describe(t).Definition
	}
	encoder := json.NewEncoder(os.Stdout)
	encoder.SetIndent("", " ")
	if err := encoder.Encode(map[string]any{"kinds": kinds, "definitions": definitions}); err != nil {
		panic(err)
	}
}
