//go:build !patchconf_patch

package main

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"k8s.io/kubectl/pkg/scheme"
)

// ssaStrategy is what the kind's registry strategies do around the field manager
// (k8s.io/kubernetes pkg/registry/*/strategy.go, apiextensions-apiserver
// pkg/registry/customresource): with a status subresource, the main resource's
// GetResetFields is `status` and its PrepareForUpdate keeps the stored status, PrepareForCreate
// clears it; the status strategy resets statusResets (GetResetFields) and keeps statusKeeps.
type ssaStrategy struct {
	status              bool
	statusResets        [][]string
	statusKeeps         [][]string
	createOnUpdate      bool // AllowCreateOnUpdate: a PUT of a missing object creates it
	unconditionalUpdate bool // AllowUnconditionalUpdate: a PUT without resourceVersion is accepted
}

var (
	specOnly          = [][]string{{"spec"}}
	statusSubresource = ssaStrategy{status: true, statusResets: specOnly, statusKeeps: specOnly, unconditionalUpdate: true}
)

// builtinStrategies: the namespaced built-in kinds whose strategies matter here (v1.33); every
// other built-in kind has no status subresource, no create on update and accepts
// unconditional updates.
var builtinStrategies = map[schema.GroupKind]ssaStrategy{
	{Group: "apps", Kind: "Deployment"}: {status: true, unconditionalUpdate: true,
		statusResets: [][]string{{"spec"}, {"metadata", "labels"}}, statusKeeps: [][]string{{"spec"}, {"metadata", "labels"}}},
	{Group: "apps", Kind: "ReplicaSet"}:                     statusSubresource,
	{Group: "apps", Kind: "StatefulSet"}:                    statusSubresource,
	{Group: "apps", Kind: "DaemonSet"}:                      statusSubresource,
	{Group: "batch", Kind: "Job"}:                           statusSubresource,
	{Group: "batch", Kind: "CronJob"}:                       statusSubresource,
	{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}: statusSubresource,
	{Group: "networking.k8s.io", Kind: "Ingress"}:           statusSubresource,
	{Group: "", Kind: "ReplicationController"}:              statusSubresource,
	{Group: "", Kind: "PersistentVolumeClaim"}:              statusSubresource,
	{Group: "", Kind: "ResourceQuota"}:                      statusSubresource,
	{Group: "policy", Kind: "PodDisruptionBudget"}:          {status: true, statusResets: specOnly, statusKeeps: specOnly},
	{Group: "", Kind: "Service"}:                            {status: true, statusResets: specOnly, statusKeeps: specOnly, createOnUpdate: true, unconditionalUpdate: true},
	{Group: "", Kind: "Pod"}: {status: true, unconditionalUpdate: true,
		statusResets: [][]string{{"spec"}, {"metadata", "deletionTimestamp"}, {"metadata", "ownerReferences"}},
		statusKeeps:  [][]string{{"spec"}, {"metadata", "deletionTimestamp"}, {"metadata", "ownerReferences"}}},
	{Group: "", Kind: "Endpoints"}:                            {createOnUpdate: true, unconditionalUpdate: true},
	{Group: "", Kind: "LimitRange"}:                           {createOnUpdate: true, unconditionalUpdate: true},
	{Group: "", Kind: "Event"}:                                {createOnUpdate: true, unconditionalUpdate: true},
	{Group: "events.k8s.io", Kind: "Event"}:                   {createOnUpdate: true, unconditionalUpdate: true},
	{Group: "coordination.k8s.io", Kind: "Lease"}:             {createOnUpdate: true},
	{Group: "rbac.authorization.k8s.io", Kind: "Role"}:        {createOnUpdate: true, unconditionalUpdate: true},
	{Group: "rbac.authorization.k8s.io", Kind: "RoleBinding"}: {createOnUpdate: true, unconditionalUpdate: true},
}

// ssaKind is the kind a case's object is served as.
type ssaKind struct {
	gvk           schema.GroupVersionKind
	resource      schema.GroupResource
	custom        bool // a custom resource (named schema or custom group): CRD field manager and strategy
	builtin       bool
	goTypes       bool // a built-in kind of the server's scheme: requests decoded into Go types (pipeline.go)
	typeConverter managedfields.TypeConverter
	strategy      ssaStrategy
	// a named schema's definitions and root: the CRD's structural schema, whose defaults the
	// server applies to every object it decodes
	definitions map[string]*spec.Schema
	root        string
	scale       *scalePaths // nil: the kind has no scale subresource (ssa_scale.go)
	// whether the last object stored needed its ObjectMeta coerced when read (a custom object)
	coercedOnStore bool
}

// ssaKindFor resolves the case's kind: a named schema is served as a CRD with that schema
// (status subresource when its root declares `status`); a kind kubectl's scheme knows is
// built in; another kind of a custom group (with a dot) is a CRD without a schema (as the live
// target creates one: `x-kubernetes-preserve-unknown-fields` at the root), with a status
// subresource when a step uses it. Anything else is skipped.
func ssaKindFor(gvk schema.GroupVersionKind, ref *schemaRef, steps []ssaStep) (*ssaKind, string, error) {
	if gvk.Kind == "" || gvk.Version == "" {
		return nil, "", fmt.Errorf("server-side-apply: no apiVersion/kind in the schema, current or steps")
	}
	kind := &ssaKind{gvk: gvk, resource: resourceFor(gvk)}
	switch {
	case ref != nil && ref.Named != "":
		root, definitions, err := namedDefinitions(ref)
		if err != nil {
			return nil, "", err
		}
		_, hasStatus := definitions[root].Properties["status"]
		kind.custom = true
		kind.definitions, kind.root = definitions, root
		kind.strategy = customStrategy(hasStatus)
		if kind.scale, err = customScale(ref.Scale, gvk); err != nil {
			return nil, "", err
		}
		kind.typeConverter, err = customTypeConverter(gvk, root, definitions, ref.Definitions)
		return kind, "", err
	case scheme.Scheme.Recognizes(gvk):
		converter, reason := builtinTypeConverter()
		if converter == nil {
			return nil, reason, nil
		}
		kind.builtin, kind.typeConverter = true, converter
		kind.goTypes = servesGoType(gvk)
		kind.strategy = ssaStrategy{unconditionalUpdate: true}
		if strategy, ok := builtinStrategies[gvk.GroupKind()]; ok {
			kind.strategy = strategy
		}
		kind.scale = builtinScale(gvk)
		return kind, "", nil
	case strings.Contains(gvk.Group, "."):
		usesStatus := false
		for _, step := range steps {
			usesStatus = usesStatus || step.Subresource == "status"
		}
		root := spec.Schema{SchemaProps: spec.SchemaProps{Type: []string{"object"}}}
		root.AddExtension("x-kubernetes-preserve-unknown-fields", true)
		kind.custom = true
		kind.strategy = customStrategy(usesStatus)
		var err error
		kind.typeConverter, err = customTypeConverter(gvk, "root", map[string]*spec.Schema{"root": &root}, nil)
		return kind, "", err
	}
	return nil, fmt.Sprintf("%s is neither a built-in kind nor given a named schema", gvk), nil
}

// customStrategy: apiextensions-apiserver's customResourceStrategy and statusStrategy (no
// create on update, no unconditional update; the status strategy resets spec but keeps
// everything except status, see ssaRun.beforeUpdate).
func customStrategy(status bool) ssaStrategy {
	return ssaStrategy{status: status, statusResets: specOnly}
}

// namedDefinitions reads a named schema's OpenAPI v2 definitions as kube-openapi schemas.
func namedDefinitions(ref *schemaRef) (string, map[string]*spec.Schema, error) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(ref.Definitions, &raw); err != nil || len(raw) == 0 {
		return "", nil, fmt.Errorf("named schema %q: no definitions (%v)", ref.Named, err)
	}
	definitions := map[string]*spec.Schema{}
	for name, text := range raw {
		definition := &spec.Schema{}
		if err := json.Unmarshal(text, definition); err != nil {
			return "", nil, fmt.Errorf("named schema %q: definition %q: %v", ref.Named, name, err)
		}
		definitions[name] = definition
	}
	root := ref.Root
	if root == "" && len(definitions) == 1 {
		for name := range definitions {
			root = name
		}
	}
	if definitions[root] == nil {
		return "", nil, fmt.Errorf("named schema %q: no root definition %q", ref.Named, root)
	}
	return root, definitions, nil
}

var (
	customConvertersMu sync.Mutex
	customConverters   = map[[32]byte]managedfields.TypeConverter{}
)

// customTypeConverter is what apiextensions-apiserver builds for a CRD
// (buildOpenAPIModelsForApply over builder.BuildOpenAPIV3): the root gets apiVersion and
// kind, `metadata` becomes ObjectMeta (whatever the schema says of it) and the
// x-kubernetes-group-version-kind extension; ObjectMeta's definitions come along; then
// managedfields.NewTypeConverter(models, false). A $ref names its definition by the last
// segment of its path, so #/definitions/X resolves as the server's #/components/schemas/X.
func customTypeConverter(gvk schema.GroupVersionKind, root string, definitions map[string]*spec.Schema,
	text json.RawMessage) (managedfields.TypeConverter, error) {
	key := sha256.Sum256([]byte(fmt.Sprintf("%s\x00%s\x00%s", gvk, root, text)))
	customConvertersMu.Lock()
	defer customConvertersMu.Unlock()
	if converter, ok := customConverters[key]; ok {
		return converter, nil
	}
	models := map[string]*spec.Schema{}
	for name, definition := range definitions {
		models[name] = definition
	}
	var meta map[string]*spec.Schema
	if err := json.Unmarshal([]byte(objectMetaDefinitions), &meta); err != nil {
		return nil, err
	}
	for name, definition := range meta {
		if _, taken := models[name]; !taken {
			models[name] = definition
		}
	}
	top := *models[root]
	properties := map[string]spec.Schema{}
	for name, property := range top.Properties {
		properties[name] = property
	}
	properties["apiVersion"] = *spec.StringProperty()
	properties["kind"] = *spec.StringProperty()
	properties["metadata"] = *spec.RefSchema("#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta")
	top.Properties = properties
	if len(top.Type) == 0 {
		top.Type = []string{"object"}
	}
	extensions := spec.Extensions{}
	for name, value := range top.Extensions {
		extensions[name] = value
	}
	top.Extensions = extensions
	top.AddExtension("x-kubernetes-group-version-kind", []interface{}{
		map[string]interface{}{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind}})
	models[root] = &top
	converter, err := managedfields.NewTypeConverter(models, false)
	if err != nil {
		return nil, fmt.Errorf("schema for %s: %v", gvk, err)
	}
	customConverters[key] = converter
	return converter, nil
}

// objectMetaDefinitions: ObjectMeta and what it refers to, from Kubernetes' OpenAPI v3
// (api/openapi-spec/v3, v1.33; descriptions left out).
const objectMetaDefinitions = `{
"io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {"type": "object", "properties": {
  "annotations": {"type": "object", "additionalProperties": {"type": "string", "default": ""}},
  "creationTimestamp": {"allOf": [{"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}]},
  "deletionGracePeriodSeconds": {"type": "integer", "format": "int64"},
  "deletionTimestamp": {"allOf": [{"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}]},
  "finalizers": {"type": "array", "items": {"type": "string", "default": ""},
    "x-kubernetes-list-type": "set", "x-kubernetes-patch-strategy": "merge"},
  "generateName": {"type": "string"},
  "generation": {"type": "integer", "format": "int64"},
  "labels": {"type": "object", "additionalProperties": {"type": "string", "default": ""}},
  "managedFields": {"type": "array", "x-kubernetes-list-type": "atomic",
    "items": {"allOf": [{"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry"}], "default": {}}},
  "name": {"type": "string"},
  "namespace": {"type": "string"},
  "ownerReferences": {"type": "array", "x-kubernetes-list-type": "map", "x-kubernetes-list-map-keys": ["uid"],
    "x-kubernetes-patch-merge-key": "uid", "x-kubernetes-patch-strategy": "merge",
    "items": {"allOf": [{"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference"}], "default": {}}},
  "resourceVersion": {"type": "string"},
  "selfLink": {"type": "string"},
  "uid": {"type": "string"}}},
"io.k8s.apimachinery.pkg.apis.meta.v1.ManagedFieldsEntry": {"type": "object", "properties": {
  "apiVersion": {"type": "string"},
  "fieldsType": {"type": "string"},
  "fieldsV1": {"allOf": [{"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1"}]},
  "manager": {"type": "string"},
  "operation": {"type": "string"},
  "subresource": {"type": "string"},
  "time": {"allOf": [{"$ref": "#/definitions/io.k8s.apimachinery.pkg.apis.meta.v1.Time"}]}}},
"io.k8s.apimachinery.pkg.apis.meta.v1.OwnerReference": {"type": "object", "x-kubernetes-map-type": "atomic",
  "required": ["apiVersion", "kind", "name", "uid"], "properties": {
  "apiVersion": {"type": "string", "default": ""},
  "blockOwnerDeletion": {"type": "boolean"},
  "controller": {"type": "boolean"},
  "kind": {"type": "string", "default": ""},
  "name": {"type": "string", "default": ""},
  "uid": {"type": "string", "default": ""}}},
"io.k8s.apimachinery.pkg.apis.meta.v1.Time": {"type": "string", "format": "date-time"},
"io.k8s.apimachinery.pkg.apis.meta.v1.FieldsV1": {"type": "object"}
}`

// newEmpty is the object the server's creater gives (runtime.ObjectCreater.New): for a
// built-in kind the empty Go object as the field manager sees it (present empty structs
// such as spec and status, so that they carry no "." of their own in a creator's fields),
// for a custom resource apiVersion and kind alone (apiextensions-apiserver's
// unstructuredCreator).
func (k *ssaKind) newEmpty() *unstructured.Unstructured {
	empty := &unstructured.Unstructured{Object: map[string]interface{}{}}
	if k.builtin {
		if typed, err := scheme.Scheme.New(k.gvk); err == nil {
			if content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed); err == nil {
				empty.Object = content
			}
		}
	}
	empty.SetGroupVersionKind(k.gvk)
	return empty
}

// newForCreate is the live object of an apply that creates (applyPatcher.createNewObject:
// the creater's new object of the served kind, for a kind with Go types the versioned type).
func (k *ssaKind) newForCreate() runtime.Object {
	if k.goTypes {
		if obj, err := serverScheme.New(k.gvk); err == nil {
			return obj
		}
	}
	return k.newEmpty()
}

// newStored is the live object of a PUT that creates (store.Update over a missing key: the
// store's NewFunc, for a kind with Go types the internal type).
func (k *ssaKind) newStored() runtime.Object {
	if k.goTypes {
		if obj, err := serverScheme.New(internalKind(k.gvk)); err == nil {
			return obj
		}
	}
	return k.newEmpty()
}

// handlerObject is the stored object as a request handler holds it: for a kind with Go types
// decoded by the storage codec into the internal type, otherwise the unstructured object.
func (k *ssaKind) handlerObject(stored *unstructured.Unstructured) (runtime.Object, error) {
	if k.goTypes {
		return liveObject(stored, k.gvk)
	}
	return stored.DeepCopy(), nil
}

// requestObject is an update body (or a patched object) as the handler decodes it: for a kind
// with Go types through the defaulting codec into the internal type; a custom resource's
// metadata coerced and its schema's defaults applied.
func (k *ssaKind) requestObject(body map[string]interface{}) (runtime.Object, *ssaError) {
	logicalTimesToClock(body)
	if k.goTypes {
		data, err := json.Marshal(body)
		if err != nil {
			return nil, statusFailure(apierrors.NewBadRequest(err.Error()))
		}
		obj, statusErr := decodeRequest(data, k.gvk)
		if statusErr != nil {
			return nil, statusFailure(statusErr)
		}
		return obj, nil
	}
	if k.custom {
		coerceObjectMeta(body)
	}
	k.withDefaults(body)
	return &unstructured.Unstructured{Object: body}, nil
}

// stored is what storage holds after a write of obj: for a kind with Go types its versioned
// encoding read back by the storage codec; another built-in kind through its Go type without
// defaults; a custom resource with its ObjectMeta coerced.
func (k *ssaKind) stored(obj runtime.Object) (*unstructured.Unstructured, *ssaError) {
	if k.goTypes {
		stored, err := storeObject(obj, k.gvk)
		if err != nil {
			return nil, storedFailure(err)
		}
		return stored, nil
	}
	object, ok := obj.(*unstructured.Unstructured)
	if !ok {
		return nil, storedFailure(fmt.Errorf("unexpected %T from the field manager", obj))
	}
	if k.builtin {
		// decoding it into the Go type turns a null string in a map[string]string into "",
		// drops null pointers, adds zero structs
		return typedRoundTrip(object, k.gvk)
	}
	if k.custom {
		// read back through the CRD's decoder, which coerces ObjectMeta
		k.coercedOnStore = coerceObjectMeta(object.Object)
	}
	return object, nil
}

// storeLive: a case's `current` as the server holds it (for a kind with Go types, decoded and
// defaulted by the storage codec).
func storeLive(current *unstructured.Unstructured, gvk schema.GroupVersionKind) (*unstructured.Unstructured, *ssaError) {
	live, err := liveObject(current, gvk)
	if err != nil {
		return nil, storedFailure(err)
	}
	stored, err := storeObject(live, gvk)
	if err != nil {
		return nil, storedFailure(err)
	}
	return stored, nil
}

// clearStatusOnCreate: the create strategy's PrepareForCreate of a kind with a status
// subresource - a built-in kind's status becomes its empty Go value (e.g. `status: {}`), a
// custom resource's is removed.
func (k *ssaKind) clearStatusOnCreate(object *unstructured.Unstructured) {
	if !k.strategy.status {
		return
	}
	delete(object.Object, "status")
	if status, ok := k.newEmpty().Object["status"]; ok && k.builtin {
		object.Object["status"] = status
	}
}

func (k *ssaKind) New(gvk schema.GroupVersionKind) (runtime.Object, error) {
	if gvk != k.gvk {
		return nil, fmt.Errorf("no kind %s here (serving %s)", gvk, k.gvk)
	}
	return k.newEmpty(), nil
}

// identityConvertor: one version per kind, nothing to convert (as apimachinery's own tests).
type identityConvertor struct{}

func (identityConvertor) Convert(in, out, context interface{}) error { return nil }
func (identityConvertor) ConvertToVersion(in runtime.Object, _ runtime.GroupVersioner) (runtime.Object, error) {
	return in, nil
}
func (identityConvertor) ConvertFieldLabel(_ schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

// noDefaults: custom kinds have no Go types, hence no defaulting functions (their schema's
// defaults are applied by withDefaults).
type noDefaults struct{}

func (noDefaults) Default(runtime.Object) {}

// fieldManager is managedfields.NewDefaultFieldManager (NewDefaultCRDFieldManager for a
// custom resource) for the kind, on the main resource ("") or a subresource, with the
// strategy's reset fields. Called through reflection: its resetFields parameter is
// map[fieldpath.APIVersion]*fieldpath.Set before apimachinery v0.32 and
// map[fieldpath.APIVersion]fieldpath.Filter since, and structured-merge-diff's import path
// changed (v4, v6) - this source names neither, so it builds against every release.
func (k *ssaKind) fieldManager(subresource string) (*managedfields.FieldManager, error) {
	var resets [][]string
	if k.strategy.status {
		resets = [][]string{{"status"}}
		if subresource != "" {
			resets = k.strategy.statusResets
		}
	}
	constructor := reflect.ValueOf(managedfields.NewDefaultFieldManager)
	if k.custom {
		constructor = reflect.ValueOf(managedfields.NewDefaultCRDFieldManager)
	}
	resetFields, err := resetFieldsArgument(constructor.Type().In(7), k.gvk.GroupVersion().String(), resets)
	if err != nil {
		return nil, err
	}
	// As installer.go builds it for a kind with Go types: the scheme converts, defaults and
	// creates, and the hub is the internal version; otherwise one version and no defaults.
	var convertor runtime.ObjectConvertor = identityConvertor{}
	var defaulter runtime.ObjectDefaulter = noDefaults{}
	var creater runtime.ObjectCreater = k
	hub := k.gvk.GroupVersion()
	if k.goTypes {
		convertor, defaulter, creater = runtime.UnsafeObjectConvertor(serverScheme), serverScheme, serverScheme
		hub = internalKind(k.gvk).GroupVersion()
	}
	out := constructor.Call([]reflect.Value{
		reflect.ValueOf(k.typeConverter), reflect.ValueOf(convertor), reflect.ValueOf(defaulter),
		reflect.ValueOf(creater), reflect.ValueOf(k.gvk), reflect.ValueOf(hub),
		reflect.ValueOf(subresource), resetFields,
	})
	if err, _ := out[1].Interface().(error); err != nil {
		return nil, err
	}
	return out[0].Interface().(*managedfields.FieldManager), nil
}

// resetFieldsArgument builds the resetFields map for the paths: the exclude set is the
// field set of an object holding "reset" at each path, typed by the deduced converter (which
// also lists the maps on the way, .metadata for .metadata.labels: those are taken out), and
// is passed as it is or wrapped in an exclude filter, whichever the parameter's map takes.
func resetFieldsArgument(mapType reflect.Type, apiVersion string, paths [][]string) (reflect.Value, error) {
	resetFields := reflect.MakeMap(mapType)
	if len(paths) == 0 {
		return resetFields, nil
	}
	var prefixes [][]string
	for _, path := range paths {
		for end := 1; end < len(path); end++ {
			prefixes = append(prefixes, path[:end])
		}
	}
	converter := managedfields.NewDeducedTypeConverter()
	leaves, err := converter.ObjectToTyped(&unstructured.Unstructured{Object: objectWithPaths(paths)})
	if err != nil {
		return resetFields, err
	}
	inner, err := converter.ObjectToTyped(&unstructured.Unstructured{Object: objectWithPaths(prefixes)})
	if err != nil {
		return resetFields, err
	}
	set, err := leaves.ToFieldSet()
	if err != nil {
		return resetFields, err
	}
	innerSet, err := inner.ToFieldSet()
	if err != nil {
		return resetFields, err
	}
	set = set.Difference(innerSet)
	value := reflect.ValueOf(set)
	if !value.Type().AssignableTo(mapType.Elem()) {
		value = reflect.ValueOf(newExcludeFields(set))
	}
	if !value.Type().AssignableTo(mapType.Elem()) {
		return resetFields, fmt.Errorf("cannot build reset fields of type %s", mapType)
	}
	resetFields.SetMapIndex(reflect.ValueOf(apiVersion).Convert(mapType.Key()), value)
	return resetFields, nil
}

func objectWithPaths(paths [][]string) map[string]interface{} {
	object := map[string]interface{}{}
	for _, path := range paths {
		_ = unstructured.SetNestedField(object, "reset", path...)
	}
	return object
}

// excludeFields is fieldpath's exclude filter (Filter(set) = set.RecursiveDifference(excluded))
// for whichever fieldpath.Set type the build has.
type fieldSet[S any] interface{ RecursiveDifference(S) S }

type excludeFields[S fieldSet[S]] struct{ excluded S }

func (f excludeFields[S]) Filter(set S) S { return set.RecursiveDifference(f.excluded) }

func newExcludeFields[S fieldSet[S]](excluded S) excludeFields[S] {
	return excludeFields[S]{excluded: excluded}
}

// withDefaults: what the CRD handler does to every object it decodes, after pruning
// (apiextensions-apiserver's structuraldefaulting): nulls of fields neither nullable nor
// defaulted are dropped (PruneNonNullableNullsWithoutDefaults), then a property with a
// `default` that is absent, or null without being nullable, gets it, and every member is
// defaulted by its own schema, a default just given too (Default). Refs are followed, as the
// CRD's schema has them inlined; metadata is not the schema's (ObjectMeta is coerced apart).
func (k *ssaKind) withDefaults(object map[string]interface{}) {
	if k.definitions == nil {
		return
	}
	root, ok := k.definitions[k.root]
	if !ok {
		return
	}
	withoutMetadata := *root
	withoutMetadata.Properties = map[string]spec.Schema{}
	for name, property := range root.Properties {
		if name != "metadata" {
			withoutMetadata.Properties[name] = property
		}
	}
	k.pruneNulls(object, &withoutMetadata, 0)
	k.defaultValue(object, &withoutMetadata, 0)
}

// memberSchema is structuraldefaulting's getSchemaForField: the property's schema, or
// additionalProperties'.
func (k *ssaKind) memberSchema(s *spec.Schema, name string) *spec.Schema {
	if property, ok := s.Properties[name]; ok {
		return k.deref(&property)
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Schema != nil {
		return k.deref(s.AdditionalProperties.Schema)
	}
	return nil
}

func (k *ssaKind) pruneNulls(value interface{}, s *spec.Schema, depth int) {
	s = k.deref(s)
	if s == nil || depth > 64 {
		return
	}
	switch v := value.(type) {
	case map[string]interface{}:
		for name, child := range v {
			member := k.memberSchema(s, name)
			if child == nil && member != nil && !member.Nullable && member.Default == nil {
				delete(v, name)
				continue
			}
			k.pruneNulls(child, member, depth+1)
		}
	case []interface{}:
		if s.Items != nil && s.Items.Schema != nil {
			for _, item := range v {
				k.pruneNulls(item, s.Items.Schema, depth+1)
			}
		}
	}
}

func (k *ssaKind) defaultValue(value interface{}, s *spec.Schema, depth int) {
	s = k.deref(s)
	if s == nil || depth > 64 {
		return
	}
	switch v := value.(type) {
	case map[string]interface{}:
		for name, property := range s.Properties {
			property := property
			p := k.deref(&property)
			if p == nil || p.Default == nil {
				continue
			}
			if child, ok := v[name]; !ok || (child == nil && !p.Nullable) {
				v[name] = runtime.DeepCopyJSONValue(p.Default)
			}
		}
		for name, child := range v {
			if _, declared := s.Properties[name]; declared {
				k.defaultValue(child, k.memberSchema(s, name), depth+1)
				continue
			}
			additional := k.memberSchema(s, name)
			if additional == nil {
				continue
			}
			if child == nil && !additional.Nullable && additional.Default != nil {
				v[name] = runtime.DeepCopyJSONValue(additional.Default)
			}
			k.defaultValue(v[name], additional, depth+1)
		}
	case []interface{}:
		if s.Items != nil && s.Items.Schema != nil {
			items := k.deref(s.Items.Schema)
			for i := range v {
				if items != nil && v[i] == nil && !items.Nullable && items.Default != nil {
					v[i] = runtime.DeepCopyJSONValue(items.Default)
				}
				k.defaultValue(v[i], items, depth+1)
			}
		}
	}
}

// deref follows a $ref (and the single-element allOf Kubernetes wraps refs in) to its definition,
// keeping a default and nullable stated beside the ref.
func (k *ssaKind) deref(s *spec.Schema) *spec.Schema {
	for i := 0; s != nil && i < 32; i++ {
		ref := s.Ref.String()
		if ref == "" && len(s.AllOf) == 1 {
			ref = s.AllOf[0].Ref.String()
		}
		if ref == "" {
			return s
		}
		target, ok := k.definitions[ref[strings.LastIndex(ref, "/")+1:]]
		if !ok {
			return nil
		}
		merged := *target
		if s.Default != nil {
			merged.Default = s.Default
		}
		if s.Nullable {
			merged.Nullable = true
		}
		s = &merged
	}
	return s
}
