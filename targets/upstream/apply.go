package main

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/jsonmergepatch"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/kubectl/pkg/util"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
)

// apply is kubectl's client-side apply, offline, following k8s.io/kubectl/pkg/cmd/apply:
// the configuration (`modified`) is read as an Unstructured object (whose metadata must
// decode into ObjectMeta, as kubectl's file reader checks) and annotated with
// util.GetModifiedConfiguration; the live object (`current`) carries the last-applied
// configuration (`original`) in its kubectl.kubernetes.io/last-applied-configuration
// annotation; the patch is Patcher.patchSimple's (strategicpatch.CreateThreeWayMergePatch
// with the case's overwrite option, kubectl apply's --overwrite, default true, for kinds with
// a strategic schema; jsonmergepatch's three-way JSON merge patch, which has no overwrite
// setting, otherwise); the document is the live object with that patch applied, as the
// apiserver applies a patch of that type. No live `current` (absent or null) is a create.
func (c *patchCase) apply() (*result, string, *caseError) {
	codec := unstructured.UnstructuredJSONScheme
	config, err := decodeObject(c.modified.bytes)
	if err != nil {
		return fail("invalid-document", err)
	}
	if err := readableMetadata(c.modified.written); err != nil { // its first error in the file's order
		return fail("invalid-document", err)
	}
	if !c.current.present || c.current.isNull() {
		// kubectl apply of an object that does not exist: annotate and create.
		if err := util.CreateApplyAnnotation(config, codec); err != nil {
			return fail(classify(err), err)
		}
		if kubectlPrunesNullsOnCreate() {
			pruneNulls(config.UnstructuredContent())
		}
		created, err := runtime.Encode(codec, config)
		if err != nil {
			return fail(classify(err), err)
		}
		return &result{Document: created}, "", nil
	}
	modified, err := util.GetModifiedConfiguration(config, true, codec)
	if err != nil {
		return fail(classify(err), err)
	}
	live, err := decodeObject(c.current.bytes)
	if err != nil {
		return fail("invalid-document", err)
	}
	if err := c.setLastApplied(live); err != nil {
		return fail("invalid-document", err)
	}
	current, err := runtime.Encode(codec, live)
	if err != nil {
		return fail(classify(err), err)
	}
	original, err := util.GetOriginalConfiguration(live)
	if err != nil {
		return fail(classify(err), err)
	}
	if original == nil {
		logf("%s: the live object is missing the %s annotation; kubectl apply warns and patches anyway",
			c.id, corev1.LastAppliedConfigAnnotation)
	}

	var patch []byte
	var applyPatch func(current, patch []byte) ([]byte, error)
	meta, cerr := c.patchMeta(c.modified)
	if cerr == nil {
		// Patcher.buildStrategicMergeFromBuiltins / buildStrategicMergeFromOpenAPI.
		lookup, err := meta.lookupPatchMeta()
		if err != nil {
			return fail(classify(err), err)
		}
		patch, err = strategicpatch.CreateThreeWayMergePatch(original, modified, current, lookup, c.options.Overwrite)
		if err != nil {
			return fail(classifyDocuments(err), err)
		}
		applyPatch = meta.apply
	} else if cerr.Class == "no-strategic-schema" {
		// Patcher.buildMergePatch: kinds kubectl's scheme does not know (Patcher.Overwrite unused).
		patch, err = jsonmergepatch.CreateThreeWayJSONMergePatch(original, modified, current, kubectlApplyPreconditions()...)
		if err != nil {
			if mergepatch.IsPreconditionFailed(err) {
				return fail("precondition-failed", fmt.Errorf("%s", "At least one of apiVersion, kind and name was changed"))
			}
			return fail(classifyDocuments(err), err)
		}
		applyPatch = jsonpatch.MergePatch
	} else {
		return nil, "", cerr
	}
	if string(patch) == "{}" {
		// kubectl sends nothing; the live object stays as it is.
		return &result{Patch: patch, Document: current}, "", nil
	}
	document, err := applyPatch(current, patch)
	if err != nil {
		return fail(classify(err), err)
	}
	return &result{Patch: patch, Document: document}, "", nil
}

// kubectlPrunesNullsOnCreate: since k8s.io/kubectl v0.31 (kubernetes/kubernetes#125646) apply's
// create path drops explicit nulls from the object after computing the annotation (which keeps
// them), so a create persists what a later update apply of the same file would. The function
// doing it (pruneNullsFromMap in pkg/cmd/apply) is unexported; pruneNulls repeats it.
func kubectlPrunesNullsOnCreate() bool {
	version := moduleVersion("k8s.io/kubectl")
	var minor int
	if _, err := fmt.Sscanf(version, "v0.%d.", &minor); err != nil {
		return true // unknown build: the pinned release's behaviour
	}
	return minor >= 31
}

// pruneNulls deletes every null-valued map member, at any depth, as kubectl's pruneNullsFromMap.
func pruneNulls(value interface{}) {
	switch typed := value.(type) {
	case map[string]interface{}:
		for key, member := range typed {
			if member == nil {
				delete(typed, key)
			} else {
				pruneNulls(member)
			}
		}
	case []interface{}:
		for _, element := range typed {
			pruneNulls(element)
		}
	}
}

// metadataOnlyObject is what kubectl's file reader decodes an object into besides
// Unstructured (k8s.io/cli-runtime pkg/resource, metadataValidatingDecoder); its name is
// the one Go's decoding errors give for a `metadata` that is no object.
type metadataOnlyObject struct {
	metav1.TypeMeta   `json:""`
	metav1.ObjectMeta `json:"metadata,omitempty"`
}

// readableMetadata: whether kubectl reads a file holding `data` (already an Unstructured
// object): its metadata must decode into ObjectMeta (a number label value does not).
func readableMetadata(data []byte) error {
	return utiljson.Unmarshal(data, &metadataOnlyObject{})
}

// decodeObject reads a document the way kubectl's resource builder does (.Unstructured()).
func decodeObject(data []byte) (*unstructured.Unstructured, error) {
	object, err := runtime.Decode(unstructured.UnstructuredJSONScheme, data)
	if err != nil {
		return nil, err
	}
	u, ok := object.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("expected a single object, got %T", object)
	}
	return u, nil
}

// setLastApplied puts the case's last-applied configuration (`original`) into the live
// object's annotation, as kubectl wrote it when that configuration was applied:
// util.GetModifiedConfiguration(config, false) (which, among other things, leaves an empty
// `metadata.annotations: {}` in it and ends it with a newline). A JSON null `original`
// means the live object has no such annotation; an absent one leaves the live object's
// own annotation, if any.
func (c *patchCase) setLastApplied(live *unstructured.Unstructured) error {
	if !c.original.present {
		return nil
	}
	annotations := live.GetAnnotations()
	if c.original.isNull() {
		if _, ok := annotations[corev1.LastAppliedConfigAnnotation]; ok {
			delete(annotations, corev1.LastAppliedConfigAnnotation)
			if len(annotations) == 0 {
				annotations = nil
			}
			live.SetAnnotations(annotations)
		}
		return nil
	}
	encoded := append(append([]byte{}, c.original.bytes...), '\n')
	if object, err := decodeObject(c.original.bytes); err == nil {
		if written, err := util.GetModifiedConfiguration(object, false, unstructured.UnstructuredJSONScheme); err == nil {
			encoded = written
		}
	}
	if annotations == nil {
		annotations = map[string]string{}
	}
	annotations[corev1.LastAppliedConfigAnnotation] = string(encoded)
	live.SetAnnotations(annotations)
	return nil
}
