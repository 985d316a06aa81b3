//go:build !patchconf_patch

package main

// Requests to the scale subresource. The registries' ScaleREST.Update (k8s.io/kubernetes
// pkg/registry/apps/{deployment,replicaset,statefulset}/storage and
// core/replicationcontroller/storage; apiextensions-apiserver pkg/registry/customresource/etcd.go)
// cannot run without etcd, so scaleUpdatedObjectInfo.UpdatedObject is repeated here around
// Kubernetes' own pieces: managedfields.ScaleHandler moves ownership of the replicas between
// the object and its Scale, and the handler's field manager for autoscaling/v1 Scale
// (subresource "scale") runs the request on the Scale. The object then goes through the main
// resource's strategy and storage (ssaRun.finish).

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/kube-openapi/pkg/validation/spec"
	"sigs.k8s.io/structured-merge-diff/v4/fieldpath"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

var scaleGVK = autoscalingv1.SchemeGroupVersion.WithKind("Scale")

// apiextensions' ScaleREST marks a custom resource without spec replicas so.
const invalidSpecReplicas = -2147483648

// scalePaths: where the object keeps what its Scale shows, and the versions whose entries
// own its replicas (ResourcePathMappings).
type scalePaths struct {
	specReplicas, statusReplicas, labelSelector []string
	mappings                                    managedfields.ResourcePathMappings
	custom                                      bool
}

// replicasPathIn<Kind> of each registry.
var builtinScaleVersions = map[schema.GroupKind][]string{
	{Group: "apps", Kind: "Deployment"}:        {"apps/v1beta1", "apps/v1beta2", "apps/v1"},
	{Group: "apps", Kind: "StatefulSet"}:       {"apps/v1beta1", "apps/v1beta2", "apps/v1"},
	{Group: "apps", Kind: "ReplicaSet"}:        {"apps/v1beta2", "apps/v1"},
	{Group: "", Kind: "ReplicationController"}: {"v1"},
}

func builtinScale(gvk schema.GroupVersionKind) *scalePaths {
	versions, ok := builtinScaleVersions[gvk.GroupKind()]
	if !ok {
		return nil
	}
	paths := &scalePaths{specReplicas: []string{"spec", "replicas"}, statusReplicas: []string{"status", "replicas"},
		mappings: managedfields.ResourcePathMappings{}}
	for _, version := range versions {
		paths.mappings[version] = fieldpath.MakePathOrDie("spec", "replicas")
	}
	return paths
}

// customScale reads a named schema's `scale` (a CRD's subresources.scale).
func customScale(raw json.RawMessage, gvk schema.GroupVersionKind) (*scalePaths, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return nil, nil
	}
	var declared struct {
		SpecReplicasPath   string `json:"specReplicasPath"`
		StatusReplicasPath string `json:"statusReplicasPath"`
		LabelSelectorPath  string `json:"labelSelectorPath"`
	}
	if err := json.Unmarshal(raw, &declared); err != nil {
		return nil, fmt.Errorf("named schema scale: %v", err)
	}
	split := func(path string) []string {
		if len(path) < 2 || path[0] != '.' {
			return nil
		}
		return strings.Split(path[1:], ".")
	}
	paths := &scalePaths{specReplicas: split(declared.SpecReplicasPath), statusReplicas: split(declared.StatusReplicasPath),
		labelSelector: split(declared.LabelSelectorPath), custom: true}
	if paths.specReplicas == nil || paths.statusReplicas == nil {
		return nil, fmt.Errorf("named schema scale: specReplicasPath and statusReplicasPath must be paths such as .spec.replicas")
	}
	elements := make([]interface{}, len(paths.specReplicas))
	for i, name := range paths.specReplicas {
		elements[i] = name
	}
	paths.mappings = managedfields.ResourcePathMappings{gvk.GroupVersion().String(): fieldpath.MakePathOrDie(elements...)}
	return paths, nil
}

const scaleDefinitions = `{
  "io.k8s.api.autoscaling.v1.Scale": {"type": "object", "properties": {
    "spec": {"$ref": "#/definitions/io.k8s.api.autoscaling.v1.ScaleSpec"},
    "status": {"$ref": "#/definitions/io.k8s.api.autoscaling.v1.ScaleStatus"}}},
  "io.k8s.api.autoscaling.v1.ScaleSpec": {"type": "object", "properties": {
    "replicas": {"type": "integer", "format": "int32"}}},
  "io.k8s.api.autoscaling.v1.ScaleStatus": {"type": "object", "required": ["replicas"], "properties": {
    "replicas": {"type": "integer", "format": "int32"}, "selector": {"type": "string"}}}
}`

var (
	scaleManagerOnce sync.Once
	scaleManager     *managedfields.FieldManager
	scaleManagerErr  error
)

// scaleFieldManager is the scale handler's field manager as installer.go builds it: the kind
// autoscaling/v1 Scale with the scheme's internal hub, subresource "scale", nothing reset.
func scaleFieldManager() (*managedfields.FieldManager, error) {
	scaleManagerOnce.Do(func() {
		// client-go's schema of the built-in kinds has no Scale (no apply configuration is
		// generated for it): its OpenAPI definition, autoscaling/v1's ScaleSpec and ScaleStatus
		// as plain structs, typed as the server types its own OpenAPI.
		definitions := map[string]*spec.Schema{}
		if err := json.Unmarshal([]byte(scaleDefinitions), &definitions); err != nil {
			scaleManagerErr = err
			return
		}
		converter, err := customTypeConverter(scaleGVK, "io.k8s.api.autoscaling.v1.Scale", definitions,
			json.RawMessage(scaleDefinitions))
		if err != nil {
			scaleManagerErr = err
			return
		}
		scaleManager, scaleManagerErr = managedfields.NewDefaultFieldManager(converter,
			runtime.UnsafeObjectConvertor(serverScheme), serverScheme, serverScheme, scaleGVK,
			internalKind(scaleGVK).GroupVersion(), "scale", nil)
	})
	return scaleManager, scaleManagerErr
}

// scale is UpdatedObject: the object's Scale, the request run on it, the replicas and their
// ownership moved back; the object as the main resource's store takes it.
func (r *ssaRun) scale(s ssaStep, manager string) (runtime.Object, *ssaError) {
	paths := r.kind.scale
	if r.live == nil {
		return nil, statusFailure(r.notFound())
	}
	fm, err := scaleFieldManager()
	if err != nil {
		return nil, &ssaError{Class: "unclassified", Message: err.Error()}
	}
	handler := managedfields.NewScaleHandler(r.live.GetManagedFields(), r.kind.gvk.GroupVersion(), paths.mappings)
	oldScale := scaleOf(r.live, paths)
	entries, err := handler.ToSubresource()
	if err != nil {
		return nil, storedFailure(err)
	}
	oldScale.SetManagedFields(entries)
	data, err := oldScale.MarshalJSON()
	if err != nil {
		return nil, storedFailure(err)
	}
	old, err := decodeStored(data, scaleGVK)
	if err != nil {
		return nil, storedFailure(err)
	}
	var next runtime.Object
	switch s.Op {
	case "apply":
		if failure := validatePatchOptions(s, manager, types.ApplyPatchType); failure != nil {
			return nil, failure
		}
		if paths.custom {
			// apiextensions' scale scope keeps the custom resource's convertor, which refuses to
			// convert the unstructured Scales of an apply to autoscaling/v1: the applied one, or,
			// when no entry owns the replicas, the creater's empty Scale skipNonApplied records
			// before-first-apply from (this target's Scale manager uses the built-in scheme, which
			// would convert them): the server answers 500.
			refusal := "to proper version: request to convert CR to an invalid group/version: autoscaling/v1"
			message := "failed to create manager for existing fields: failed to convert live object (/; " +
				"autoscaling/v1, Kind=Scale) " + refusal
			if len(entries) > 0 {
				applied := &unstructured.Unstructured{}
				_ = applied.UnmarshalJSON(s.Object)
				message = fmt.Sprintf("failed to convert new object (%s/%s; autoscaling/v1, Kind=Scale) %s",
					applied.GetNamespace(), applied.GetName(), refusal)
			}
			return nil, &ssaError{Class: "invalid-patch", Status: 500, Reason: "InternalError", Message: message}
		}
		body, err := decodeJSONObject(s.Object)
		if err != nil {
			return nil, statusFailure(apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err)))
		}
		if next, err = fm.Apply(old, &unstructured.Unstructured{Object: body}, manager, s.Force != nil && *s.Force); err != nil {
			return nil, applyFailure(err)
		}
	case "update", "patch":
		body := []byte(s.Object)
		if s.Op == "patch" {
			var failure *ssaError
			if body, failure = r.patchedScale(s, manager, old); failure != nil {
				return nil, failure
			}
		}
		if manager == "" {
			manager = ssaDefaultManager
		}
		decoded, statusErr := decodeRequest(body, scaleGVK)
		if statusErr != nil {
			return nil, statusFailure(statusErr)
		}
		next = fm.UpdateNoErrors(old, decoded, manager)
	default:
		return nil, &ssaError{Class: "unclassified", Message: fmt.Sprintf("unknown step op %q", s.Op)}
	}
	versioned, err := encodeVersioned(next, scaleGVK)
	if err != nil {
		return nil, storedFailure(err)
	}
	newScale := &autoscalingv1.Scale{}
	if err := json.Unmarshal(versioned, newScale); err != nil {
		return nil, storedFailure(err)
	}
	specPath := "." + strings.Join(paths.specReplicas, ".")
	if paths.custom && newScale.Spec.Replicas == invalidSpecReplicas {
		return nil, statusFailure(apierrors.NewBadRequest(fmt.Sprintf("the spec replicas field %q cannot be empty", specPath)))
	}
	if paths.custom && newScale.Spec.Replicas < 0 { // customResourceValidator.ValidateScaleSpec on the object
		return nil, statusFailure(apierrors.NewInvalid(r.kind.gvk.GroupKind(), r.name, field.ErrorList{
			field.Invalid(field.NewPath(specPath), int64(newScale.Spec.Replicas), "should be a non-negative integer")}))
	}
	if !paths.custom && newScale.Spec.Replicas < 0 { // autoscalingvalidation.ValidateScale
		return nil, statusFailure(apierrors.NewInvalid(schema.GroupKind{Group: "autoscaling", Kind: "Scale"}, r.name,
			field.ErrorList{field.Invalid(field.NewPath("spec", "replicas"), newScale.Spec.Replicas,
				"must be greater than or equal to 0")}))
	}
	parent := r.live.DeepCopy()
	if err := unstructured.SetNestedField(parent.Object, int64(newScale.Spec.Replicas), paths.specReplicas...); err != nil {
		return nil, storedFailure(err)
	}
	parentEntries, err := handler.ToParent(newScale.ManagedFields)
	if err != nil {
		return nil, storedFailure(err)
	}
	parent.SetManagedFields(parentEntries)
	if r.kind.goTypes {
		object, err := r.kind.handlerObject(parent)
		if err != nil {
			return nil, storedFailure(err)
		}
		return object, nil
	}
	return parent, nil
}

// patchedScale: the patch applied to the old Scale's JSON (handlers/patch.go), a strategic
// merge patch by the Scale's Go type.
func (r *ssaRun) patchedScale(s ssaStep, manager string, old runtime.Object) ([]byte, *ssaError) {
	patchType := map[string]types.PatchType{
		"json-patch": types.JSONPatchType, "merge-patch": types.MergePatchType, "strategic": types.StrategicMergePatchType,
	}[s.PatchType]
	if patchType == "" {
		return nil, &ssaError{Class: "unclassified", Message: fmt.Sprintf("unknown patch_type %q", s.PatchType)}
	}
	if failure := validatePatchOptions(s, manager, patchType); failure != nil {
		return nil, failure
	}
	original, err := encodeVersioned(old, scaleGVK)
	if err != nil {
		return nil, storedFailure(err)
	}
	if patchType == types.StrategicMergePatchType {
		patched, err := strategicpatch.StrategicMergePatch(original, []byte(s.Patch), &autoscalingv1.Scale{})
		if err != nil {
			return nil, strategicFailure(err, original, []byte(s.Patch))
		}
		return patched, nil
	}
	return r.patchedJSON(patchType, original, []byte(s.Patch))
}

// scaleOf is scaleFrom<Kind> / scaleFromCustomResource: the object's Scale.
func scaleOf(live *unstructured.Unstructured, paths *scalePaths) *unstructured.Unstructured {
	replicas, found, _ := unstructured.NestedInt64(live.Object, paths.specReplicas...)
	if !found && paths.custom {
		replicas = invalidSpecReplicas
	}
	statusReplicas, _, _ := unstructured.NestedInt64(live.Object, paths.statusReplicas...)
	selector := ""
	if paths.custom {
		if paths.labelSelector != nil {
			selector, _, _ = unstructured.NestedString(live.Object, paths.labelSelector...)
		}
	} else if live.GetKind() == "ReplicationController" {
		set, _, _ := unstructured.NestedStringMap(live.Object, "spec", "selector")
		selector = labels.SelectorFromSet(labels.Set(set)).String()
	} else if raw, found, _ := unstructured.NestedMap(live.Object, "spec", "selector"); found {
		labelSelector := &metav1.LabelSelector{}
		if runtime.DefaultUnstructuredConverter.FromUnstructured(raw, labelSelector) == nil {
			if parsed, err := metav1.LabelSelectorAsSelector(labelSelector); err == nil {
				selector = parsed.String()
			}
		}
	}
	scale := &autoscalingv1.Scale{
		TypeMeta: metav1.TypeMeta{APIVersion: "autoscaling/v1", Kind: "Scale"},
		ObjectMeta: metav1.ObjectMeta{Name: live.GetName(), Namespace: live.GetNamespace(), UID: live.GetUID(),
			ResourceVersion: live.GetResourceVersion(), CreationTimestamp: live.GetCreationTimestamp()},
		Spec:   autoscalingv1.ScaleSpec{Replicas: int32(replicas)},
		Status: autoscalingv1.ScaleStatus{Replicas: int32(statusReplicas), Selector: selector},
	}
	content, _ := runtime.DefaultUnstructuredConverter.ToUnstructured(scale)
	return &unstructured.Unstructured{Object: content}
}
