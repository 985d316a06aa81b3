//go:build !patchconf_patch

package main

// server-side-apply cases: a sequence of requests on one object, answered by Kubernetes'
// own field manager (k8s.io/apimachinery/pkg/util/managedfields.NewDefaultFieldManager, the
// chain the apiserver installs: version check, last-applied handling for "kubectl",
// before-first-apply, the cap of ten Update managers, timestamps, stripped metadata,
// structured-merge-diff) driven step by step. The stored object is kept as its JSON; for a
// built-in kind each request decodes it, and the request's body, with the apiserver's own
// scheme (pipeline.go) and runs the kind's registry strategy (strategies.go). What else the
// apiserver does around its field manager (create on apply, uid, resourceVersion checks, the
// status resets of kinds without a strategy here, the no-op rule) is emulated, each time after
// the server code named in the comments; README.md lists what is not.

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"sort"
	"strconv"
	"strings"
	"time"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/structured-merge-diff/v4/fieldpath"
)

// The logical clock: step n happens at ssaEpoch + n seconds, and an entry `time` t (an
// integer, 0 or less in a case's `current`) is ssaEpoch + t. The field manager stamps
// what a step sets with the real time.Now(), which lies far beyond every logical time; an
// entry time from ssaNowFrom on is therefore "set by the step being run".
var ssaEpoch = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

const ssaNowFrom = 1 << 28 // seconds after ssaEpoch (8.5 years; the real clock is far beyond)

// ssaDefaultManager is the manager of an update or patch that names none: the apiserver
// takes the User-Agent up to its first "/" (handlers/create.go, managerOrUserAgent), and
// patchconf's live target sends "patchconf".
const ssaDefaultManager = "patchconf"

const ssaOptimisticLock = "the object has been modified; please apply your changes to the latest version and try again"

type ssaStep struct {
	Op          string          `json:"op"`
	Manager     *string         `json:"manager"`
	Force       *bool           `json:"force"`
	Subresource string          `json:"subresource"`
	Object      json.RawMessage `json:"object"`
	PatchType   string          `json:"patch_type"`
	Patch       json.RawMessage `json:"patch"`
	CSAManagers json.RawMessage `json:"csa_managers"` // op csa-upgrade (ssa_migration.go)
	DryRun      bool            `json:"dry_run"`      // dryRun=All: answered, not stored
}

// ssaEntry is a managedFields entry as a case states it: no fieldsType, time = step number.
type ssaEntry struct {
	Manager     string          `json:"manager"`
	Operation   string          `json:"operation"`
	APIVersion  string          `json:"apiVersion"`
	Subresource string          `json:"subresource,omitempty"`
	Time        *int64          `json:"time,omitempty"` // absent: the entry has no time
	FieldsV1    json.RawMessage `json:"fieldsV1,omitempty"`
}

type ssaConflict struct {
	Manager string `json:"manager"`
	Field   string `json:"field"`
}

type ssaError struct {
	Class     string        `json:"class"`
	Message   string        `json:"message"`
	Status    int32         `json:"status,omitempty"`
	Reason    string        `json:"reason,omitempty"`
	Conflicts []ssaConflict `json:"conflicts,omitempty"`
}

type ssaDone struct {
	Document      map[string]interface{} `json:"document"`
	ManagedFields []ssaEntry             `json:"managed_fields"`
	Changed       bool                   `json:"changed"`
	Warnings      *[]string              `json:"warnings,omitempty"` // what kubectl printed (op kubectl-apply)
}

type ssaFailed struct {
	Error    *ssaError `json:"error"`
	Warnings *[]string `json:"warnings,omitempty"`
}

// ssaRun is one case being run: the kind's field managers and the live object.
type ssaRun struct {
	kind      *ssaKind
	main      *managedfields.FieldManager
	status    *managedfields.FieldManager
	live      *unstructured.Unstructured // nil: no object yet
	answer    *unstructured.Unstructured // the object the last request that succeeded answered
	name      string                     // the object's name (the request URL's)
	versions  int                        // resourceVersions handed out
	namespace string                     // the object's namespace, if the case states one
	// storage holds the zero status PrepareForCreate left, which its decoder defaults on every
	// read (a claim's phase Pending): the first update writes the defaulted one, a change
	statusUndefaulted bool
	// storage holds a custom object as the request handed it, its ObjectMeta coerced only when
	// read (an applied null annotation is null there, "" once read): a write of what reads the
	// same is still a write where one of the two needed coercing and the other did not
	coerced bool
	// a built-in object's entries as storage holds them: encoded by the field manager (false) or
	// by a write through /scale, whose ToParent re-encodes every FieldsV1 from a map, its keys
	// sorted as text (entriesReordered); a custom object's are always stored so
	entriesSorted bool
}

// serverSideApply answers a server-side-apply case: one result per step.
func (c *patchCase) serverSideApply() (*result, string, *caseError) {
	var steps []ssaStep
	if err := json.Unmarshal(c.steps, &steps); err != nil || len(c.steps) == 0 {
		return nil, "a server-side-apply case needs \"steps\"", nil
	}
	var current map[string]interface{}
	if c.current.present && !c.current.isNull() {
		object, err := decodeJSONObject(c.current.bytes)
		if err != nil {
			return nil, "", &caseError{Class: "invalid-document", Message: fmt.Sprintf("current: %v", err)}
		}
		current = object
	}
	if skip := migrationSkip(steps); skip != "" {
		return nil, skip, nil
	}
	gvk, name, namespace := ssaIdentity(c.schema, current, steps)
	kind, skip, err := ssaKindFor(gvk, c.schema, steps)
	if skip != "" {
		return nil, skip, nil
	}
	if err != nil {
		return nil, "", &caseError{Class: "unclassified", Message: err.Error()}
	}
	run := &ssaRun{kind: kind, name: name, namespace: namespace}
	if run.main, err = kind.fieldManager(""); err == nil && kind.strategy.status {
		run.status, err = kind.fieldManager("status")
	}
	if err != nil {
		return nil, "", &caseError{Class: "unclassified", Message: err.Error()}
	}
	if current != nil {
		logicalTimesToClock(current)
		run.live = &unstructured.Unstructured{Object: current}
		if run.live.GetUID() == "" {
			run.live.SetUID(ssaUID)
		}
		if created := run.live.GetCreationTimestamp(); created.IsZero() {
			run.live.SetCreationTimestamp(metav1.NewTime(ssaEpoch))
		}
		run.live.SetResourceVersion(run.nextResourceVersion())
		if kind.goTypes {
			// what the server holds is what its storage decoder reads: decoded, defaulted
			stored, failure := storeLive(run.live, kind.gvk)
			if failure != nil {
				return nil, "", &caseError{Class: failure.Class, Message: "current: " + failure.Message}
			}
			run.live = stored
		} else if kind.custom {
			// a custom resource as the CRD handler decoded it when it was created
			kind.withDefaults(run.live.Object)
		}
	}
	out := &result{Steps: []interface{}{}}
	for i, step := range steps {
		out.Steps = append(out.Steps, run.step(i+1, step))
	}
	return out, "", nil
}

// ssaUID is the uid of the case's object: a server gives every object one, and the field
// manager's skip-non-applied rule depends on it (an update of an object that has a uid and
// no managedFields is not tracked). Objects also get a creationTimestamp (the step's time; a
// `current` without one the epoch), which requests cannot change.
const ssaUID = "00000000-0000-0000-0000-00000000a001"

// nextResourceVersion: the server's own resourceVersions, which a case cannot know: one a
// case states (in `current` or a request) is never the stored one.
func (r *ssaRun) nextResourceVersion() string {
	r.versions++
	return strconv.Itoa(ssaFirstResourceVersion + r.versions)
}

const ssaFirstResourceVersion = 880000000

// ssaIdentity is the endpoint's kind (the schema's built-in kind, else the object's) and the
// object's name and namespace: from `current`, else from the first step that states them.
func ssaIdentity(ref *schemaRef, current map[string]interface{}, steps []ssaStep) (schema.GroupVersionKind, string, string) {
	apiVersion, kind, name, namespace := "", "", "", ""
	take := func(object map[string]interface{}) {
		if object == nil {
			return
		}
		if v, ok := object["apiVersion"].(string); ok && apiVersion == "" {
			apiVersion = v
		}
		if v, ok := object["kind"].(string); ok && kind == "" {
			kind = v
		}
		if metadata, ok := object["metadata"].(map[string]interface{}); ok && name == "" {
			name, _ = metadata["name"].(string)
			namespace, _ = metadata["namespace"].(string)
		}
	}
	if ref != nil && ref.Named == "" {
		apiVersion, kind = ref.APIVersion, ref.Kind
	}
	take(current)
	for _, step := range steps {
		if object, err := decodeJSONObject(step.Object); err == nil {
			take(object)
		}
	}
	return schema.FromAPIVersionAndKind(apiVersion, kind), name, namespace
}

// step runs one request and answers its result (ssaDone) or its error (ssaFailed). A failed
// step leaves the live object as it was.
func (r *ssaRun) step(n int, s ssaStep) interface{} {
	if isMigrationOp(s.Op) {
		return r.migrationStep(n, s)
	}
	if s.Op == "kubectl-apply" {
		return r.kubectlApply(n, s)
	}
	manager := ""
	if s.Manager != nil {
		manager = *s.Manager
	}
	if s.Subresource == "scale" && r.kind.scale != nil {
		return r.finish(n, s, false, nil, nil, func() (runtime.Object, *ssaError) { return r.scale(s, manager) })
	}
	if s.Subresource != "" && (s.Subresource != "status" || r.status == nil) {
		// No such subresource: the server has no route for it.
		return ssaFail(&ssaError{Class: "unclassified", Status: http.StatusNotFound, Reason: string(metav1.StatusReasonNotFound),
			Message: "the server could not find the requested resource"})
	}
	fm := r.main
	if s.Subresource == "status" {
		fm = r.status
	}
	var result runtime.Object
	var failure *ssaError
	created := false
	switch s.Op {
	case "apply":
		result, created, failure = r.apply(fm, s, manager)
	case "update":
		result, created, failure = r.update(fm, s, manager)
	case "create": // a POST, as kubectl apply creates (ssa_kubectl_apply.go)
		result, created, failure = r.create(fm, s, manager)
	case "patch":
		result, failure = r.patch(fm, s, manager)
	default:
		failure = &ssaError{Class: "unclassified", Message: fmt.Sprintf("unknown step op %q", s.Op)}
	}
	return r.finish(n, s, created, result, failure, nil)
}

// finish stores a request's result (or the one write gives) as the kind's storage would and
// answers the step.
func (r *ssaRun) finish(n int, s ssaStep, created bool, result runtime.Object, failure *ssaError,
	write func() (runtime.Object, *ssaError)) interface{} {
	subresource := s.Subresource
	sortsEntries := write != nil // ScaleHandler.ToParent's entries
	if write != nil {
		result, failure = write()
		subresource = "" // ScaleREST stores through the main resource's store and strategy
	}
	if failure != nil {
		return ssaFail(failure)
	}
	if failure := r.validateObjectMeta(result); failure != nil {
		return ssaFail(failure)
	}
	// store.Create / store.Update: the kind's registry strategy where this target has it
	// (strategies.go), on the internal object, before it is stored
	strategyRan, failure := r.beforeWrite(result, created, subresource)
	if failure != nil {
		return ssaFail(failure)
	}
	next, failure := r.kind.stored(result)
	if failure != nil {
		return ssaFail(failure)
	}
	if strategyRan && r.namespace == "" {
		// the request's namespace, which the case does not name
		unstructured.RemoveNestedField(next.Object, "metadata", "namespace")
	}
	r.kind.withDefaults(next.Object)
	stampStep(next, n)
	changed := true
	if created {
		// store.Create: rest.BeforeCreate -> PrepareForCreate clears status (a built-in kind's
		// to its empty Go value, e.g. `status: {}`; a custom resource's is removed); the
		// server assigns uid and resourceVersion.
		if !s.DryRun {
			r.coerced = r.kind.coercedOnStore
		}
		next.SetUID(ssaUID)
		next.SetResourceVersion(r.nextResourceVersion())
		next.SetCreationTimestamp(metav1.NewTime(ssaEpoch.Add(time.Duration(n) * time.Second)))
		if !strategyRan {
			r.kind.clearStatusOnCreate(next)
			if r.kind.goTypes {
				// what the create's answer is: the stored object read back, its status defaulted
				cleared := next.Object["status"]
				stored, failure := storeLive(next, r.kind.gvk)
				if failure != nil {
					return ssaFail(failure)
				}
				next = stored
				r.statusUndefaulted = !s.DryRun && !sameJSON(map[string]interface{}{"status": cleared},
					map[string]interface{}{"status": next.Object["status"]})
			}
		}
	} else {
		r.beforeUpdate(next, subresource)
		// the same entries in other bytes: not the timestamp transformer's equal, and a write
		reordered := r.kind.goTypes && sortsEntries != r.entriesSorted && entriesReordered(next.GetManagedFields())
		if !reordered {
			ignoreTimestampOnlyChanges(next, r.live)
		}
		changed = reordered || !sameJSON(next.Object, r.live.Object) || r.statusUndefaulted ||
			r.kind.coercedOnStore != r.coerced
		if !s.DryRun {
			r.statusUndefaulted = false
			if changed {
				r.coerced = r.kind.coercedOnStore
				r.entriesSorted = sortsEntries
			}
		}
		if changed && !s.DryRun {
			next.SetResourceVersion(r.nextResourceVersion())
		} else if !changed {
			next = r.live // nothing is written
		}
	}
	r.answer = next
	if s.DryRun {
		// dryRun=All: the registry runs every step of the write but storage keeps nothing
		// (dryrun.go); the answer is the object it would have stored.
		return answerOf(next, false)
	}
	r.live = next
	return r.done(n, changed)
}

func ssaFail(e *ssaError) ssaFailed { return ssaFailed{Error: e} }

// apply: PATCH with application/apply-patch+yaml (handlers/patch.go applyPatcher). A missing
// object is created from the creater's empty object (forceAllowCreate; createNewObject: for a
// built-in kind the empty versioned Go object), except on a subresource (StatusREST.Update
// never creates).
func (r *ssaRun) apply(fm *managedfields.FieldManager, s ssaStep, manager string) (runtime.Object, bool, *ssaError) {
	if failure := validatePatchOptions(s, manager, types.PatchType("application/apply-patch+yaml")); failure != nil {
		return nil, false, failure
	}
	body, err := decodeJSONObject(s.Object)
	if err != nil {
		return nil, false, statusFailure(apierrors.NewBadRequest(fmt.Sprintf("error decoding YAML: %v", err)))
	}
	logicalTimesToClock(body)
	var live runtime.Object
	create := r.live == nil
	if create {
		if s.Subresource != "" {
			return nil, false, statusFailure(r.notFound())
		}
		live = r.kind.newForCreate()
	} else if live, err = r.kind.handlerObject(r.live); err != nil {
		return nil, false, storedFailure(err)
	}
	next, err := fm.Apply(live, &unstructured.Unstructured{Object: body}, manager, s.Force != nil && *s.Force)
	if err != nil {
		return nil, false, applyFailure(err)
	}
	if accessor, err := meta.Accessor(next); err == nil && create && accessor.GetUID() != "" {
		// patcher.applyPatch: a uid names an object that should exist
		return nil, false, statusFailure(apierrors.NewConflict(r.kind.resource, r.name, fmt.Errorf(
			"uid mismatch: the provided object specified uid %s, and no existing object was found", accessor.GetUID())))
	}
	if failure := r.checkName(next); failure != nil {
		return nil, false, failure
	}
	if !create {
		if failure := r.checkResourceVersion(next, true); failure != nil {
			return nil, false, failure
		}
	}
	return next, create, nil
}

// update: PUT of the whole object (handlers/update.go, then registry/generic/registry
// store.Update): the body decoded as the handler decodes it, the field manager's
// UpdateNoErrors, then the store's checks.
func (r *ssaRun) update(fm *managedfields.FieldManager, s ssaStep, manager string) (runtime.Object, bool, *ssaError) {
	if errs := metavalidation.ValidateUpdateOptions(&metav1.UpdateOptions{FieldManager: manager}); len(errs) > 0 {
		return nil, false, statusFailure(apierrors.NewInvalid(
			schema.GroupKind{Group: metav1.GroupName, Kind: "UpdateOptions"}, "", errs))
	}
	if manager == "" {
		manager = ssaDefaultManager
	}
	body, err := decodeJSONObject(s.Object)
	if err != nil {
		return nil, false, statusFailure(apierrors.NewBadRequest(err.Error()))
	}
	next, failure := r.kind.requestObject(body)
	if failure != nil {
		return nil, false, failure
	}
	if failure := r.checkName(next); failure != nil {
		return nil, false, failure
	}
	if r.live == nil {
		if s.Subresource != "" || !r.kind.strategy.createOnUpdate {
			return nil, false, statusFailure(r.notFound())
		}
		// A create through PUT: the live object is the store's empty one (no uid: tracked).
		return fm.UpdateNoErrors(r.kind.newStored(), next, manager), true, nil
	}
	nextMeta, _ := meta.Accessor(next)
	// rest.DefaultUpdatedObjectInfo: a uid in the body is a storage precondition.
	if uid := nextMeta.GetUID(); uid != "" && uid != r.live.GetUID() {
		return nil, false, statusFailure(apierrors.NewConflict(r.kind.resource, r.name, fmt.Errorf(
			"StorageError: invalid object, Code: 4, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: "+
				"Precondition failed: UID in precondition: %v, UID in object meta: %v", r.storageKey(), uid, r.live.GetUID())))
	}
	// An update step is a client's read-modify-write: it carries the live resourceVersion
	// unless the case's object states one (cases/README.md).
	if nextMeta.GetResourceVersion() == "" {
		nextMeta.SetResourceVersion(r.live.GetResourceVersion())
	}
	if failure := r.checkResourceVersion(next, r.kind.strategy.unconditionalUpdate); failure != nil {
		return nil, false, failure
	}
	live, err := r.kind.handlerObject(r.live)
	if err != nil {
		return nil, false, storedFailure(err)
	}
	return fm.UpdateNoErrors(live, next, manager), false, nil
}

// patch: PATCH with a JSON patch, merge patch or strategic merge patch (handlers/patch.go):
// the patch applied to the live object by the same libraries (patch_builtin.go for kinds
// with Go types), then the field manager's UpdateNoErrors, then the store's checks as for an
// update.
func (r *ssaRun) patch(fm *managedfields.FieldManager, s ssaStep, manager string) (runtime.Object, *ssaError) {
	patchType := map[string]types.PatchType{
		"json-patch": types.JSONPatchType, "merge-patch": types.MergePatchType, "strategic": types.StrategicMergePatchType,
	}[s.PatchType]
	if patchType == "" {
		return nil, &ssaError{Class: "unclassified", Message: fmt.Sprintf("unknown patch_type %q", s.PatchType)}
	}
	if r.kind.custom && patchType == types.StrategicMergePatchType {
		// Custom resources are not served with strategic merge patch.
		return nil, &ssaError{Class: "no-strategic-schema", Status: http.StatusUnsupportedMediaType,
			Reason: string(metav1.StatusReasonUnsupportedMediaType),
			Message: "the body of the request was in an unknown format - accepted media types include: " +
				"application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"}
	}
	if failure := validatePatchOptions(s, manager, patchType); failure != nil {
		return nil, failure
	}
	if manager == "" {
		manager = ssaDefaultManager
	}
	if r.live == nil {
		return nil, statusFailure(r.notFound())
	}
	var live, next runtime.Object
	var failure *ssaError
	if r.kind.goTypes {
		var err error
		if live, err = r.kind.handlerObject(r.live); err != nil {
			return nil, storedFailure(err)
		}
		next, failure = r.patchGoType(live, patchType, []byte(s.Patch))
	} else {
		live = r.live.DeepCopy()
		next, failure = r.patchUnstructured(patchType, []byte(s.Patch))
	}
	if failure != nil {
		return nil, failure
	}
	if failure := r.checkName(next); failure != nil {
		return nil, failure
	}
	if failure := r.checkResourceVersion(next, true); failure != nil {
		return nil, failure
	}
	return fm.UpdateNoErrors(live, next, manager), nil
}

// patchUnstructured: the patch applied to the stored object's JSON (with its uid,
// resourceVersion and managedFields), for kinds without Go types.
func (r *ssaRun) patchUnstructured(patchType types.PatchType, patch []byte) (runtime.Object, *ssaError) {
	original, err := json.Marshal(r.live.Object)
	if err != nil {
		return nil, &ssaError{Class: "unclassified", Message: err.Error()}
	}
	patched, failure := r.patchedJSON(patchType, original, patch)
	if failure != nil {
		return nil, failure
	}
	object, err := decodeJSONObject(patched)
	if err != nil {
		return nil, &ssaError{Class: "invalid-document", Message: err.Error()}
	}
	return r.kind.requestObject(object)
}

// patchedJSON applies the patch as handlers/patch.go does, with its error answers: a JSON
// patch that does not decode is a 400, one that does not apply a bare 422 (the library's
// reason is dropped); a merge patch that is not JSON a 400; strategic merge patch errors as
// interpretStrategicMergePatchError sorts them; any other error a 500 with its text.
func (r *ssaRun) patchedJSON(patchType types.PatchType, original, patch []byte) ([]byte, *ssaError) {
	switch patchType {
	case types.JSONPatchType:
		operations, err := jsonpatch.DecodePatch(patch)
		if err != nil {
			return nil, statusFailure(apierrors.NewBadRequest(err.Error()), "invalid-patch")
		}
		patched, err := operations.Apply(original)
		if err != nil {
			return nil, statusFailure(apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "",
				schema.GroupResource{}, "", err.Error(), 0, false), classifyJSONPatch(err))
		}
		return patched, nil
	case types.MergePatchType:
		patched, err := jsonpatch.MergePatch(original, patch)
		if err == jsonpatch.ErrBadJSONPatch {
			return nil, statusFailure(apierrors.NewBadRequest(err.Error()), "invalid-patch")
		} else if err != nil {
			return nil, &ssaError{Class: classify(err), Status: http.StatusInternalServerError, Message: err.Error()}
		}
		return patched, nil
	}
	typed, err := builtinObject(r.kind.gvk)
	if err != nil {
		return nil, &ssaError{Class: "no-strategic-schema", Message: err.Error()}
	}
	patched, err := strategicpatch.StrategicMergePatch(original, patch, typed)
	if err == nil {
		return patched, nil
	}
	return nil, strategicFailure(err, original, patch)
}

// strategicFailure: a strategic merge patch error as interpretStrategicMergePatchError
// (handlers/patch.go) answers it, with patchconf's class.
func strategicFailure(err error, original, patch []byte) *ssaError {
	var doc, other input
	_ = json.Unmarshal(original, &doc.value)
	_ = json.Unmarshal(patch, &other.value)
	doc.present, other.present = true, true
	class := classifyStrategic(err, doc, other, "patch")
	switch err {
	case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList, mergepatch.ErrBadPatchFormatForRetainKeys,
		mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat:
		return statusFailure(apierrors.NewBadRequest(err.Error()), class)
	case mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys:
		return statusFailure(apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "",
			schema.GroupResource{}, "", err.Error(), 0, false), class)
	}
	return &ssaError{Class: class, Status: http.StatusInternalServerError, Message: err.Error()}
}

// validatePatchOptions: the PatchOptions checks of handlers/patch.go (422, kind PatchOptions).
func validatePatchOptions(s ssaStep, manager string, patchType types.PatchType) *ssaError {
	options := &metav1.PatchOptions{FieldManager: manager, Force: s.Force}
	if errs := metavalidation.ValidatePatchOptions(options, patchType); len(errs) > 0 {
		return statusFailure(apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: "PatchOptions"}, "", errs))
	}
	return nil
}

// storageKey: where etcd holds the object (registry/generic: /registry/<resource>, custom
// resources /registry/<group>/<resource>; a few built-in resources use other prefixes).
func (r *ssaRun) storageKey() string {
	parts := []string{"", "registry"}
	if r.kind.custom {
		parts = append(parts, r.kind.resource.Group)
	}
	parts = append(parts, r.kind.resource.Resource)
	if r.namespace != "" {
		parts = append(parts, r.namespace)
	}
	return strings.Join(append(parts, r.name), "/")
}

func (r *ssaRun) notFound() *apierrors.StatusError {
	return apierrors.NewNotFound(r.kind.resource, r.name)
}

// checkName: the object a request produces must keep the name of the request URL.
func (r *ssaRun) checkName(object runtime.Object) *ssaError {
	accessor, err := meta.Accessor(object)
	if err != nil {
		return &ssaError{Class: "unclassified", Status: http.StatusInternalServerError, Message: err.Error()}
	}
	if name := accessor.GetName(); name != r.name {
		return statusFailure(apierrors.NewBadRequest(fmt.Sprintf(
			"the name of the object (%s) does not match the name on the URL (%s)", name, r.name)))
	}
	return nil
}

// checkResourceVersion: store.Update's optimistic concurrency. An object without a
// resourceVersion is an unconditional update where the strategy allows one (it gets the
// stored one), a 422 otherwise; another resourceVersion than the stored one is a conflict.
func (r *ssaRun) checkResourceVersion(object runtime.Object, unconditional bool) *ssaError {
	accessor, err := meta.Accessor(object)
	if err != nil {
		return &ssaError{Class: "unclassified", Status: http.StatusInternalServerError, Message: err.Error()}
	}
	switch version := accessor.GetResourceVersion(); {
	case version == "" && unconditional:
		accessor.SetResourceVersion(r.live.GetResourceVersion())
	case version == "":
		return statusFailure(apierrors.NewInvalid(
			schema.GroupKind{Group: r.kind.resource.Group, Kind: r.kind.resource.Resource}, r.name,
			field.ErrorList{field.Invalid(field.NewPath("metadata", "resourceVersion"), uint64(0), "must be specified for an update")}))
	case version != r.live.GetResourceVersion():
		return statusFailure(apierrors.NewConflict(r.kind.resource, r.name, fmt.Errorf(ssaOptimisticLock)))
	}
	return nil
}

// beforeUpdate: rest.BeforeUpdate and the strategies' PrepareForUpdate. Requests cannot
// change uid, creationTimestamp or generation; the main resource keeps the stored status
// and a status request keeps what its strategy keeps (built-in kinds: spec and what
// ssaStrategy.statusKeeps lists; custom resources: everything but status).
func (r *ssaRun) beforeUpdate(next *unstructured.Unstructured, subresource string) {
	old := r.live
	next.SetUID(old.GetUID())
	next.SetCreationTimestamp(old.GetCreationTimestamp())
	next.SetGeneration(old.GetGeneration())
	if next.GetGeneration() == 0 {
		unstructured.RemoveNestedField(next.Object, "metadata", "generation")
	}
	strategy := r.kind.strategy
	if !strategy.status {
		return
	}
	if subresource == "" {
		keepPath(next.Object, old.Object, "status")
		return
	}
	if r.kind.custom {
		// apiextensions-apiserver statusStrategy.PrepareForUpdate: the old object with the
		// new status and the new managedFields.
		status, hasStatus := next.Object["status"]
		managed, hasManaged, _ := unstructured.NestedFieldCopy(next.Object, "metadata", "managedFields")
		next.Object = runtime.DeepCopyJSON(old.Object)
		unstructured.RemoveNestedField(next.Object, "metadata", "managedFields")
		if hasManaged {
			_ = unstructured.SetNestedField(next.Object, managed, "metadata", "managedFields")
		}
		delete(next.Object, "status")
		if hasStatus {
			next.Object["status"] = status
		}
		return
	}
	for _, path := range strategy.statusKeeps {
		keepPath(next.Object, old.Object, path...)
	}
}

// keepPath sets path in next to its value in old (removing it where old has none).
func keepPath(next, old map[string]interface{}, path ...string) {
	value, found, err := unstructured.NestedFieldCopy(old, path...)
	if err != nil || !found {
		unstructured.RemoveNestedField(next, path...)
		return
	}
	_ = unstructured.SetNestedField(next, value, path...)
}

// ignoreTimestampOnlyChanges is what fieldmanager.IgnoreManagedFieldsTimestampsTransformer
// (k8s.io/apiserver, called from store.Update) does: when the new object differs from the
// stored one only in managedFields times - same entries in the same order, same fields -
// the stored times are put back, so that nothing is written.
func ignoreTimestampOnlyChanges(next, old *unstructured.Unstructured) {
	oldEntries, newEntries := old.GetManagedFields(), next.GetManagedFields()
	if len(oldEntries) != len(newEntries) || len(newEntries) == 0 {
		return
	}
	timesChanged := false
	for i := range newEntries {
		if !newEntries[i].Time.Equal(oldEntries[i].Time) {
			timesChanged = true
		}
		a, b := newEntries[i], oldEntries[i]
		a.Time, b.Time = nil, nil
		if !reflect.DeepEqual(a, b) {
			return
		}
	}
	if !timesChanged || !equalOutsideManagedFields(next.Object, old.Object) {
		return
	}
	for i := range newEntries {
		newEntries[i].Time = oldEntries[i].Time
	}
	next.SetManagedFields(newEntries)
}

func equalOutsideManagedFields(a, b map[string]interface{}) bool {
	strip := func(object map[string]interface{}) map[string]interface{} {
		copied := runtime.DeepCopyJSON(object)
		unstructured.RemoveNestedField(copied, "metadata", "managedFields")
		return copied
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

// entriesReordered: whether some entry's FieldsV1 as structured-merge-diff writes its set
// (fieldpath.Set.ToJSON, elements in PathElement order: numbers by size) differs from the same
// fields as a map encoded by encoding/json (keys sorted as text), which is how ScaleHandler's
// managedFieldsEntries leaves them. A built-in object's storage compares the encoded bytes.
func entriesReordered(entries []metav1.ManagedFieldsEntry) bool {
	for _, entry := range entries {
		if entry.FieldsV1 == nil {
			continue
		}
		set := &fieldpath.Set{}
		if err := set.FromJSON(bytes.NewReader(entry.FieldsV1.Raw)); err != nil {
			continue
		}
		written, err := set.ToJSON()
		var fields map[string]interface{}
		if err != nil || json.Unmarshal(entry.FieldsV1.Raw, &fields) != nil {
			continue
		}
		if sorted, err := json.Marshal(fields); err == nil && !bytes.Equal(written, sorted) {
			return true
		}
	}
	return false
}

// sameJSON: what etcd3's GuaranteedUpdate compares (the encoded objects).
func sameJSON(a, b map[string]interface{}) bool {
	x, errA := json.Marshal(a)
	y, errB := json.Marshal(b)
	return errA == nil && errB == nil && string(x) == string(y)
}

// stampStep gives the entries the step set ("now") the step's logical time, in the order
// the field manager sorts entries (operation, time in seconds, manager, apiVersion,
// subresource; internal/managedfields.go), as if the whole step ran within one second.
func stampStep(object *unstructured.Unstructured, n int) {
	entries := object.GetManagedFields()
	if len(entries) == 0 {
		return
	}
	for i := range entries {
		if t := entries[i].Time; t != nil && t.Unix()-ssaEpoch.Unix() >= ssaNowFrom {
			entries[i].Time = &metav1.Time{Time: ssaEpoch.Add(time.Duration(n) * time.Second)}
		}
	}
	seconds := func(t *metav1.Time) int64 {
		if t == nil {
			return 0
		}
		return t.Unix()
	}
	sort.SliceStable(entries, func(i, j int) bool {
		p, q := entries[i], entries[j]
		switch {
		case p.Operation != q.Operation:
			return p.Operation < q.Operation
		case seconds(p.Time) != seconds(q.Time):
			return seconds(p.Time) < seconds(q.Time)
		case p.Manager != q.Manager:
			return p.Manager < q.Manager
		case p.APIVersion != q.APIVersion:
			return p.APIVersion < q.APIVersion
		}
		return p.Subresource < q.Subresource
	})
	object.SetManagedFields(entries)
}

// logicalTimesToClock turns a case's managedFields entries (integer times, no fieldsType)
// into what a server holds: RFC 3339 times on the logical clock, fieldsType FieldsV1.
func logicalTimesToClock(object map[string]interface{}) {
	metadata, _ := object["metadata"].(map[string]interface{})
	entries, _ := metadata["managedFields"].([]interface{})
	for _, item := range entries {
		entry, ok := item.(map[string]interface{})
		if !ok {
			continue
		}
		switch t := entry["time"].(type) {
		case int64:
			entry["time"] = ssaEpoch.Add(time.Duration(t) * time.Second).Format(time.RFC3339)
		case float64:
			entry["time"] = ssaEpoch.Add(time.Duration(int64(t)) * time.Second).Format(time.RFC3339)
		}
		if _, hasFields := entry["fieldsV1"]; hasFields && entry["fieldsType"] == nil {
			entry["fieldsType"] = "FieldsV1"
		}
	}
}

// done is a step's answer: the object without server-owned metadata, its entries with
// logical times.
func (r *ssaRun) done(n int, changed bool) ssaDone {
	return answerOf(r.live, changed)
}

// answerOf is a step's result showing object: its document without what the server owns, and
// its entries.
func answerOf(object *unstructured.Unstructured, changed bool) ssaDone {
	live := object
	document := runtime.DeepCopyJSON(live.Object)
	if metadata, ok := document["metadata"].(map[string]interface{}); ok {
		for _, key := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"} {
			delete(metadata, key)
		}
	}
	entries := []ssaEntry{}
	for _, entry := range live.GetManagedFields() {
		out := ssaEntry{Manager: entry.Manager, Operation: string(entry.Operation), APIVersion: entry.APIVersion,
			Subresource: entry.Subresource}
		if entry.Time != nil {
			t := entry.Time.Unix() - ssaEpoch.Unix()
			out.Time = &t
		}
		if entry.FieldsV1 != nil {
			out.FieldsV1 = json.RawMessage(entry.FieldsV1.Raw)
		}
		entries = append(entries, out)
	}
	return ssaDone{Document: document, ManagedFields: entries, Changed: changed}
}

// statusFailure: an API error as the server answers it, with patchconf's class (by status
// code, unless given).
func statusFailure(err *apierrors.StatusError, class ...string) *ssaError {
	status := err.Status()
	out := &ssaError{Message: status.Message, Status: status.Code, Reason: string(status.Reason)}
	switch status.Code {
	case http.StatusConflict:
		out.Class = "conflict"
	case http.StatusBadRequest:
		out.Class = "invalid-patch"
	case http.StatusUnprocessableEntity:
		out.Class = "invalid"
	default:
		out.Class = "unclassified"
	}
	if len(class) > 0 {
		out.Class = class[0]
	}
	if status.Details != nil {
		for _, cause := range status.Details.Causes {
			if cause.Type == metav1.CauseTypeFieldManagerConflict {
				out.Conflicts = append(out.Conflicts, ssaConflict{Manager: conflictManager(cause.Message), Field: cause.Field})
			}
		}
		sort.Slice(out.Conflicts, func(i, j int) bool {
			a, b := out.Conflicts[i], out.Conflicts[j]
			if a.Field != b.Field {
				return a.Field < b.Field
			}
			return a.Manager < b.Manager
		})
	}
	return out
}

// conflictManager is the manager's name in a conflict cause's message
// (`conflict with "hpa" using v1`, internal/conflict.go printManager).
func conflictManager(message string) string {
	rest := strings.TrimPrefix(message, "conflict with ")
	if quoted, err := strconv.QuotedPrefix(rest); err == nil {
		if name, err := strconv.Unquote(quoted); err == nil {
			return name
		}
	}
	return rest
}

// applyFailure: an error of FieldManager.Apply. API errors travel as they are (409
// conflicts, 400 for managedFields in the body or another kind); the rest are plain errors,
// which the server answers with 500 and the error's text (responsewriters/status.go).
func applyFailure(err error) *ssaError {
	if status, ok := err.(*apierrors.StatusError); ok {
		return statusFailure(status)
	}
	if status, ok := err.(apierrors.APIStatus); ok {
		return statusFailure(&apierrors.StatusError{ErrStatus: status.Status()})
	}
	class := "unclassified"
	switch message := err.Error(); {
	case strings.HasPrefix(message, "failed to create typed patch object"):
		class = "invalid-patch" // the apply configuration does not type against the schema
	case strings.HasPrefix(message, "failed to convert new object"),
		strings.HasPrefix(message, "failed to convert to unversioned"):
		// the applied result is no Go value of the kind (data that is not base64) or its internal
		// version cannot hold it (a rollback annotation that is no integer): the live target's
		// class for a 500 answering an apply body
		class = "invalid-patch"
	case strings.HasPrefix(message, "failed to create typed live object"),
		strings.HasPrefix(message, "failed to create manager for existing fields"):
		class = "invalid-document" // the stored object does not type (duplicate items before 1.29)
	}
	return &ssaError{Class: class, Status: http.StatusInternalServerError, Message: err.Error()}
}

// decodeJSONObject reads a JSON object as the apiserver's unstructured objects hold it
// (integers as int64, other numbers as float64).
func decodeJSONObject(data []byte) (map[string]interface{}, error) {
	if len(data) == 0 {
		return nil, fmt.Errorf("no object")
	}
	var value interface{}
	if err := utiljson.Unmarshal(data, &value); err != nil {
		return nil, err
	}
	object, ok := value.(map[string]interface{})
	if !ok {
		return nil, fmt.Errorf("expected an object, got %s", strings.TrimSpace(string(data)))
	}
	return object, nil
}

// resourceFor names the kind's resource as the server's messages do (deployments.apps).
func resourceFor(gvk schema.GroupVersionKind) schema.GroupResource {
	plural, _ := meta.UnsafeGuessKindToResource(gvk)
	return plural.GroupResource()
}

// coerceObjectMeta: a custom resource's metadata is decoded through the typed ObjectMeta
// (apiextensions-apiserver's objectmeta.Coerce), whose members are all omitempty: an empty or
// null one is gone before the field manager sees it, so `managedFields: []` resets nothing
// on a custom resource (found against kube-apiserver 1.33.13).
func coerceObjectMeta(object map[string]interface{}) (changed bool) {
	metadata, ok := object["metadata"].(map[string]interface{})
	if !ok {
		return false
	}
	for key, value := range metadata {
		switch v := value.(type) {
		case nil:
			delete(metadata, key)
			changed = true
		case []interface{}:
			if len(v) == 0 {
				delete(metadata, key)
				changed = true
			}
		case map[string]interface{}:
			if len(v) == 0 {
				delete(metadata, key)
				changed = true
			} else if key == "labels" || key == "annotations" {
				// a map[string]string: a null member decodes as ""
				for name, member := range v {
					if member == nil {
						v[name] = ""
						changed = true
					}
				}
			}
		}
	}
	return changed
}

// typedRoundTrip: the object through the kind's Go type and back, as storage keeps it.
func typedRoundTrip(object *unstructured.Unstructured, gvk schema.GroupVersionKind) (*unstructured.Unstructured, *ssaError) {
	typed, err := scheme.Scheme.New(gvk)
	if err != nil {
		return object, nil
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(object.Object, typed); err != nil {
		return nil, &ssaError{Class: "invalid-document", Status: http.StatusInternalServerError,
			Reason: string(metav1.StatusReasonInternalError), Message: err.Error()}
	}
	content, err := runtime.DefaultUnstructuredConverter.ToUnstructured(typed)
	if err != nil {
		return nil, &ssaError{Class: "invalid-document", Status: http.StatusInternalServerError,
			Reason: string(metav1.StatusReasonInternalError), Message: err.Error()}
	}
	out := &unstructured.Unstructured{Object: content}
	out.SetAPIVersion(gvk.GroupVersion().String())
	out.SetKind(gvk.Kind)
	return out, nil
}
