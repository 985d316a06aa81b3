package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// input is one of a case's documents: absent, or present (possibly JSON null).
type input struct {
	present bool
	value   interface{} // decoded with UseNumber
	bytes   []byte      // the value marshalled back to JSON: what the library is handed
	written []byte      // the member as the case was sent (members in its order, as a file has them)
}

func (in input) isObject() bool {
	_, ok := in.value.(map[string]interface{})
	return in.present && ok
}

func (in input) isNull() bool { return in.present && in.value == nil }

// schemaRef is the request's `schema`: a built-in kind, or a named schema given whole.
type schemaRef struct {
	APIVersion  string          `json:"apiVersion"`
	Kind        string          `json:"kind"`
	Version     string          `json:"version"`
	Named       string          `json:"named"`
	Root        string          `json:"root"`
	Definitions json.RawMessage `json:"definitions"`
	Scale       json.RawMessage `json:"scale"` // a named schema's scale subresource, as a CRD states it
}

type patchCase struct {
	id, typ                            string
	original, patch, modified, current input
	schema                             *schemaRef
	options                            caseOptions
	steps                              json.RawMessage // server-side-apply
}

// caseOptions are the request's `options`; absent members take kubectl apply's defaults.
type caseOptions struct {
	// Overwrite is kubectl apply's --overwrite: CreateThreeWayMergePatch's overwrite argument.
	Overwrite bool
}

func parseOptions(raw json.RawMessage) (caseOptions, error) {
	options := caseOptions{Overwrite: true}
	if len(raw) == 0 || string(raw) == "null" {
		return options, nil
	}
	var given struct {
		Overwrite *bool `json:"overwrite"`
	}
	if err := json.Unmarshal(raw, &given); err != nil {
		return options, err
	}
	if given.Overwrite != nil {
		options.Overwrite = *given.Overwrite
	}
	return options, nil
}

func parseCase(raw json.RawMessage) (*patchCase, error) {
	if len(raw) == 0 {
		return nil, errors.New("run request without a case")
	}
	var members map[string]json.RawMessage
	if err := json.Unmarshal(raw, &members); err != nil {
		return nil, fmt.Errorf("case is not an object: %v", err)
	}
	c := &patchCase{}
	if v, ok := members["id"]; ok {
		_ = json.Unmarshal(v, &c.id)
	}
	if err := json.Unmarshal(members["type"], &c.typ); err != nil {
		return nil, fmt.Errorf("case without a type: %v", err)
	}
	for name, target := range map[string]*input{
		"original": &c.original, "patch": &c.patch, "modified": &c.modified, "current": &c.current,
	} {
		v, ok := members[name]
		if !ok {
			continue
		}
		decoder := json.NewDecoder(bytes.NewReader(v))
		decoder.UseNumber()
		if err := decoder.Decode(&target.value); err != nil {
			return nil, fmt.Errorf("case member %q: %v", name, err)
		}
		marshalled, err := json.Marshal(target.value)
		if err != nil {
			return nil, fmt.Errorf("case member %q: %v", name, err)
		}
		target.present, target.bytes, target.written = true, marshalled, v
	}
	options, err := parseOptions(members["options"])
	if err != nil {
		return nil, fmt.Errorf("case member \"options\": %v", err)
	}
	c.options = options
	c.steps = members["steps"]
	if v, ok := members["schema"]; ok && string(v) != "null" {
		c.schema = &schemaRef{}
		if err := json.Unmarshal(v, c.schema); err != nil {
			return nil, fmt.Errorf("case member \"schema\": %v", err)
		}
	}
	return c, nil
}

// caseRunners answer the case types that take more than two or three documents: server-side-apply
// in a full build (full.go).
var caseRunners = map[string]func(*patchCase) (*result, string, *caseError){}

// run answers the case: a result, a skip reason, or the upstream error.
func (c *patchCase) run() (*result, string, *caseError) {
	need := map[string][]string{
		"json-patch":       {"original", "patch"},
		"merge-patch":      {"original", "patch"},
		"strategic":        {"original", "patch"},
		"merge-patch-2way": {"original", "modified"},
		"strategic-2way":   {"original", "modified"},
		"merge-patch-3way": {"original", "modified", "current"},
		"strategic-3way":   {"original", "modified", "current"},
		"apply":            {"modified"},
	}
	if runner, ok := caseRunners[c.typ]; ok {
		return runner(c)
	}
	members, known := need[c.typ]
	if !known {
		return nil, fmt.Sprintf("patch type %q is not served by the upstream target", c.typ), nil
	}
	for _, name := range members {
		if !c.inputs()[name].present {
			return nil, fmt.Sprintf("a %s case needs %q", c.typ, name), nil
		}
	}
	switch c.typ {
	case "json-patch":
		return c.jsonPatch()
	case "merge-patch":
		return c.mergePatch()
	case "merge-patch-2way":
		return c.mergePatch2Way()
	case "merge-patch-3way":
		return c.mergePatch3Way()
	case "strategic":
		return c.strategic()
	case "strategic-2way":
		return c.strategic2Way()
	case "strategic-3way":
		return c.strategic3Way()
	default:
		return c.apply()
	}
}

func (c *patchCase) inputs() map[string]input {
	return map[string]input{"original": c.original, "patch": c.patch, "modified": c.modified, "current": c.current}
}

func fail(class string, err error) (*result, string, *caseError) {
	return nil, "", &caseError{Class: class, Message: err.Error()}
}

// json-patch: what `kubectl patch --type json` and the apiserver call.
func (c *patchCase) jsonPatch() (*result, string, *caseError) {
	patch, err := jsonpatch.DecodePatch(c.patch.bytes)
	if err != nil {
		return fail("invalid-patch", err)
	}
	document, err := patch.Apply(c.original.bytes)
	if err != nil {
		return fail(classifyJSONPatch(err), err)
	}
	return &result{Document: document}, "", nil
}

// merge-patch: what `kubectl patch --type merge` and the apiserver call.
func (c *patchCase) mergePatch() (*result, string, *caseError) {
	document, err := jsonpatch.MergePatch(c.original.bytes, c.patch.bytes)
	if err != nil {
		return fail(classify(err), err)
	}
	return &result{Document: document}, "", nil
}

// merge-patch-2way: jsonpatch.CreateMergePatch; the document is the original with the
// created patch applied by jsonpatch.MergePatch.
func (c *patchCase) mergePatch2Way() (*result, string, *caseError) {
	patch, err := jsonpatch.CreateMergePatch(c.original.bytes, c.modified.bytes)
	if err != nil {
		return fail(classifyDocuments(err), err)
	}
	out := &result{Patch: patch}
	if document, err := jsonpatch.MergePatch(c.original.bytes, patch); err == nil {
		out.Document = document
	} else {
		logf("%s: applying the created merge patch failed: %v", c.id, err)
	}
	return out, "", nil
}

// kubectlApplyPreconditions are the preconditions kubectl apply passes to
// CreateThreeWayJSONMergePatch (k8s.io/kubectl/pkg/cmd/apply/patcher.go, buildMergePatch)
// and kubectl edit to CreateTwoWayMergePatch.
func kubectlApplyPreconditions() []mergepatch.PreconditionFunc {
	return []mergepatch.PreconditionFunc{
		mergepatch.RequireKeyUnchanged("apiVersion"),
		mergepatch.RequireKeyUnchanged("kind"),
		mergepatch.RequireMetadataKeyUnchanged("name"),
	}
}

// lastApplied is the original (last-applied) document as kubectl hands it over: no
// last-applied configuration (JSON null) is nil bytes, as GetOriginalConfiguration returns.
func (c *patchCase) lastApplied() []byte {
	if c.original.isNull() {
		return nil
	}
	return c.original.bytes
}

// merge-patch-3way: jsonmergepatch.CreateThreeWayJSONMergePatch as kubectl apply calls it
// for kinds without a strategic schema (with its apiVersion/kind/name preconditions).
func (c *patchCase) mergePatch3Way() (*result, string, *caseError) {
	patch, err := jsonmergepatch.CreateThreeWayJSONMergePatch(
		c.lastApplied(), c.modified.bytes, c.current.bytes, kubectlApplyPreconditions()...)
	if err != nil {
		return fail(classifyDocuments(err), err)
	}
	return &result{Patch: patch}, "", nil
}

// strategic: strategicpatch.StrategicMergePatch with the typed object of a built-in kind
// (as `kubectl patch --local` does), or StrategicMergePatchUsingLookupPatchMeta with patch
// metadata from the named schema's OpenAPI definitions.
func (c *patchCase) strategic() (*result, string, *caseError) {
	meta, cerr := c.patchMeta(c.original)
	if cerr != nil {
		return nil, "", cerr
	}
	document, err := meta.apply(c.original.bytes, c.patch.bytes)
	if err != nil {
		return fail(classifyStrategic(err, c.original, c.patch, "patch"), err)
	}
	return &result{Document: document}, "", nil
}

// strategic-2way: strategicpatch.CreateTwoWayMergePatch with kubectl's preconditions; the
// document is the original with the created patch applied.
func (c *patchCase) strategic2Way() (*result, string, *caseError) {
	meta, cerr := c.patchMeta(c.original)
	if cerr != nil {
		return nil, "", cerr
	}
	patch, err := meta.createTwoWay(c.original.bytes, c.modified.bytes, kubectlApplyPreconditions()...)
	if err != nil {
		return fail(classifyStrategic(err, c.original, c.modified, "modified"), err)
	}
	out := &result{Patch: patch}
	if document, err := meta.apply(c.original.bytes, patch); err == nil {
		out.Document = document
	} else {
		logf("%s: applying the created strategic patch failed: %v", c.id, err)
	}
	return out, "", nil
}

// strategic-3way: strategicpatch.CreateThreeWayMergePatch(original, modified, current, lookup,
// overwrite) alone, without kubectl apply's annotation handling or preconditions; a null
// original is no last-applied configuration (nil bytes). The document is current with the
// created patch applied.
func (c *patchCase) strategic3Way() (*result, string, *caseError) {
	meta, cerr := c.patchMeta(c.modified)
	if cerr != nil {
		return nil, "", cerr
	}
	lookup, err := meta.lookupPatchMeta()
	if err != nil {
		return fail(classify(err), err)
	}
	patch, err := strategicpatch.CreateThreeWayMergePatch(c.lastApplied(), c.modified.bytes, c.current.bytes,
		lookup, c.options.Overwrite)
	if err != nil {
		return fail(classifyDocuments(err), err)
	}
	out := &result{Patch: patch}
	if document, err := meta.apply(c.current.bytes, patch); err == nil {
		out.Document = document
	} else {
		logf("%s: applying the created strategic patch failed: %v", c.id, err)
	}
	return out, "", nil
}

// patchMetaFor carries the patch metadata of a case: the typed object of a built-in kind
// (handed to the same entry points kubectl uses) or an OpenAPI lookup for a named schema.
type patchMetaFor struct {
	typed  interface{}                    // built-in: a *T from kubectl's scheme
	lookup strategicpatch.LookupPatchMeta // named schema
}

func (m *patchMetaFor) apply(original, patch []byte) ([]byte, error) {
	if m.typed != nil {
		return strategicpatch.StrategicMergePatch(original, patch, m.typed)
	}
	return strategicpatch.StrategicMergePatchUsingLookupPatchMeta(original, patch, m.lookup)
}

func (m *patchMetaFor) createTwoWay(original, modified []byte, fns ...mergepatch.PreconditionFunc) ([]byte, error) {
	if m.typed != nil {
		return strategicpatch.CreateTwoWayMergePatch(original, modified, m.typed, fns...)
	}
	return strategicpatch.CreateTwoWayMergePatchUsingLookupPatchMeta(original, modified, m.lookup, fns...)
}

func (m *patchMetaFor) lookupPatchMeta() (strategicpatch.LookupPatchMeta, error) {
	if m.typed != nil {
		return strategicpatch.NewPatchMetaFromStruct(m.typed)
	}
	return m.lookup, nil
}

// patchMeta resolves the case's schema: a named schema from its definitions, else a
// built-in kind (the schema's apiVersion/kind, defaulting to the document's own).
func (c *patchCase) patchMeta(document input) (*patchMetaFor, *caseError) {
	if c.schema != nil && c.schema.Named != "" {
		lookup, err := namedSchema(c.schema)
		if err != nil {
			return nil, &caseError{Class: "unclassified", Message: err.Error()}
		}
		return &patchMetaFor{lookup: lookup}, nil
	}
	gvk := c.gvk(document)
	typed, err := builtinObject(gvk)
	if err != nil {
		return nil, &caseError{Class: "no-strategic-schema", Message: err.Error()}
	}
	return &patchMetaFor{typed: typed}, nil
}

func logf(format string, args ...interface{}) {
	fmt.Fprintf(logOutput, "patchconf-upstream: "+format+"\n", args...)
}
