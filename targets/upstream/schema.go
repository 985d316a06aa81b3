package main

import (
	"crypto/sha256"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sync"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/kube-openapi/pkg/util/proto"
	prototesting "k8s.io/kube-openapi/pkg/util/proto/testing"
	"k8s.io/kubectl/pkg/scheme"
)

// gvk is the built-in kind whose Go type supplies the patch metadata: the schema's
// apiVersion/kind, or else the document's own (what `kubectl patch --local` reads).
func (c *patchCase) gvk(document input) schema.GroupVersionKind {
	apiVersion, kind := "", ""
	if c.schema != nil {
		apiVersion, kind = c.schema.APIVersion, c.schema.Kind
	}
	if object, ok := document.value.(map[string]interface{}); ok {
		if apiVersion == "" {
			apiVersion, _ = object["apiVersion"].(string)
		}
		if kind == "" {
			kind, _ = object["kind"].(string)
		}
	}
	return schema.FromAPIVersionAndKind(apiVersion, kind)
}

// builtinObject is a new typed object for a built-in kind from kubectl's scheme
// (k8s.io/kubectl/pkg/scheme: client-go's kubernetes scheme plus the meta types), with
// kubectl's wording when the kind is unknown (k8s.io/kubectl/pkg/cmd/patch, getPatchedJSON).
func builtinObject(gvk schema.GroupVersionKind) (runtime.Object, error) {
	object, err := scheme.Scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("strategic merge patch is not supported for %s locally, try --type merge", gvk.String())
	}
	return object, nil
}

var (
	namedSchemasMu sync.Mutex
	namedSchemas   = map[[32]byte]proto.Models{}
)

// namedSchema builds patch metadata from the OpenAPI v2 definitions sent with the case:
// the definitions are wrapped in a swagger 2.0 document, parsed by gnostic's
// openapi_v2.ParseDocument (through kube-openapi's proto/testing.Fake, which reads it from
// a file), turned into a proto.Models by proto.NewOpenAPIData, and the root model is
// handed to strategicpatch.NewPatchMetaFromOpenAPI - the same path kubectl takes with the
// OpenAPI document it downloads. Going through Fake keeps the source free of gnostic's
// import path, which moved (github.com/google/gnostic -> github.com/google/gnostic-models)
// between Kubernetes releases.
func namedSchema(ref *schemaRef) (strategicpatch.LookupPatchMeta, error) {
	if len(ref.Definitions) == 0 || string(ref.Definitions) == "null" {
		return nil, fmt.Errorf("named schema %q has no definitions", ref.Named)
	}
	var definitions map[string]json.RawMessage
	if err := json.Unmarshal(ref.Definitions, &definitions); err != nil {
		return nil, fmt.Errorf("named schema %q: definitions: %v", ref.Named, err)
	}
	root := ref.Root
	if root == "" {
		if len(definitions) != 1 {
			return nil, fmt.Errorf("named schema %q has no root and %d definitions", ref.Named, len(definitions))
		}
		for name := range definitions {
			root = name
		}
	}
	models, err := namedModels(ref)
	if err != nil {
		return nil, err
	}
	model := models.LookupModel(root)
	if model == nil {
		return nil, fmt.Errorf("named schema %q: unable to find schema for root %q", ref.Named, root)
	}
	return strategicpatch.NewPatchMetaFromOpenAPI(model), nil
}

func namedModels(ref *schemaRef) (proto.Models, error) {
	document, err := json.Marshal(map[string]interface{}{
		"swagger":     "2.0",
		"info":        map[string]string{"title": "patchconf", "version": "1"},
		"paths":       map[string]interface{}{},
		"definitions": ref.Definitions,
	})
	if err != nil {
		return nil, fmt.Errorf("named schema %q: %v", ref.Named, err)
	}
	key := sha256.Sum256(document)
	namedSchemasMu.Lock()
	defer namedSchemasMu.Unlock()
	if models, ok := namedSchemas[key]; ok {
		return models, nil
	}
	file, err := os.CreateTemp("", "patchconf-upstream-*.json")
	if err != nil {
		return nil, err
	}
	defer os.Remove(file.Name())
	_, err = file.Write(document)
	if closeErr := file.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return nil, err
	}
	openAPIDocument, err := (&prototesting.Fake{Path: file.Name()}).OpenAPISchema()
	if err != nil {
		return nil, fmt.Errorf("named schema %q: %v", ref.Named, err)
	}
	if openAPIDocument == nil {
		return nil, errors.New("named schema: no document")
	}
	models, err := proto.NewOpenAPIData(openAPIDocument)
	if err != nil {
		return nil, fmt.Errorf("named schema %q: %v", ref.Named, err)
	}
	namedSchemas[key] = models
	return models, nil
}
