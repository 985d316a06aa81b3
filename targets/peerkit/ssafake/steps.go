// Package ssafake is the library-independent half of a server-side apply peer that drives
// a fake (client-go's fake clientset, controller-runtime's fake client): reading the case,
// the logical clock, and the step results. Each peer's Store sends the steps through its
// own fake.
package ssafake

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
)

// Case is a server-side-apply request: `current` (nil: absent; the text null: no object)
// and the steps, without their expectations.
type Case struct {
	ID      string          `json:"id"`
	Type    string          `json:"type"`
	Current json.RawMessage `json:"current"`
	Steps   []Step          `json:"steps"`
	Schema  *SchemaRef      `json:"schema"`
}

// SchemaRef is the request's `schema`: a built-in kind, or a named schema given whole
// (OpenAPI v2 definitions).
type SchemaRef struct {
	APIVersion  string                     `json:"apiVersion"`
	Kind        string                     `json:"kind"`
	Named       string                     `json:"named"`
	Root        string                     `json:"root"`
	Definitions map[string]json.RawMessage `json:"definitions"`
}

type Step struct {
	Op          string          `json:"op"`
	Manager     *string         `json:"manager"`
	Force       bool            `json:"force"`
	Subresource string          `json:"subresource"`
	Object      json.RawMessage `json:"object"`
	PatchType   string          `json:"patch_type"`
	Patch       json.RawMessage `json:"patch"`
}

// FieldManager is the request's fieldManager ("" when the step names none).
func (s Step) FieldManager() string {
	if s.Manager == nil {
		return ""
	}
	return *s.Manager
}

// Subresources is the step's subresource as a client call takes it (none: the object).
func (s Step) Subresources() []string {
	if s.Subresource == "" {
		return nil
	}
	return []string{s.Subresource}
}

var patchTypes = map[string]types.PatchType{
	"json-patch":  types.JSONPatchType,
	"merge-patch": types.MergePatchType,
	"strategic":   types.StrategicMergePatchType,
}

type StepResult struct {
	Document      json.RawMessage `json:"document,omitempty"`
	ManagedFields *[]ManagedEntry `json:"managed_fields,omitempty"`
	Changed       *bool           `json:"changed,omitempty"`
	Error         *StepError      `json:"error,omitempty"`
}

type ManagedEntry struct {
	Manager     string          `json:"manager"`
	Operation   string          `json:"operation"`
	APIVersion  string          `json:"apiVersion"`
	Time        *int64          `json:"time,omitempty"` // absent: the entry has no time
	FieldsV1    json.RawMessage `json:"fieldsV1,omitempty"`
	Subresource string          `json:"subresource,omitempty"`
}

type StepError struct {
	Class     string     `json:"class"`
	Message   string     `json:"message"`
	Status    int32      `json:"status,omitempty"`
	Reason    string     `json:"reason,omitempty"`
	Conflicts []Conflict `json:"conflicts,omitempty"`
}

type Conflict struct {
	Manager string `json:"manager"`
	Field   string `json:"field"`
}

// Store is one object in a fake, reached through the fake's own API.
type Store interface {
	Apply(s Step, name string) error
	Update(s Step) error
	Patch(s Step, name string, patchType types.PatchType) error
	// Get reads the object back (nil: there is none).
	Get() (runtime.Object, error)
	// Wrote tells whether the last request wrote the object, as the fake lets a client see it.
	Wrote(before, after runtime.Object) bool
}

// ObjectID is what a case's objects say about the one object: kind, name, namespace.
type ObjectID struct {
	GVK             schema.GroupVersionKind
	Name, Namespace string
}

// ObjectID finds the case's object: the first apiVersion/kind, name and namespace its
// objects state, else the kind of its schema.
func (c *Case) ObjectID() (ObjectID, error) {
	var documents []json.RawMessage
	if isObject(c.Current) {
		documents = append(documents, c.Current)
	}
	for _, s := range c.Steps {
		if isObject(s.Object) {
			documents = append(documents, s.Object)
		}
	}
	var id ObjectID
	for _, raw := range documents {
		var head struct {
			APIVersion string `json:"apiVersion"`
			Kind       string `json:"kind"`
			Metadata   struct {
				Name      string `json:"name"`
				Namespace string `json:"namespace"`
			} `json:"metadata"`
		}
		if json.Unmarshal(raw, &head) != nil {
			continue
		}
		if id.GVK.Kind == "" && head.APIVersion != "" && head.Kind != "" {
			id.GVK = schema.FromAPIVersionAndKind(head.APIVersion, head.Kind)
		}
		if id.Name == "" {
			id.Name = head.Metadata.Name
		}
		if id.Namespace == "" {
			id.Namespace = head.Metadata.Namespace
		}
	}
	if id.GVK.Kind == "" && c.Schema != nil && c.Schema.Kind != "" {
		id.GVK = schema.FromAPIVersionAndKind(c.Schema.APIVersion, c.Schema.Kind)
	}
	if id.GVK.Kind == "" {
		return id, errors.New("no object in the case names its apiVersion and kind")
	}
	return id, nil
}

func isObject(raw json.RawMessage) bool {
	trimmed := bytes.TrimSpace(raw)
	return len(trimmed) > 0 && trimmed[0] == '{'
}

// clock maps the fake's wall-clock managedFields times to the case's logical clock: step n
// happens at time n. `current`'s integer times become timestamps epoch+t seconds, before
// the case starts; each step runs in a wall-clock second of its own (the field manager
// stamps time.Now() and orders entries by whole seconds), so each new time seen after
// step n belongs to step n.
type clock struct {
	epoch   time.Time
	logical map[int64]int64 // Unix second -> logical time
	latest  int64           // the newest Unix second a step stamped
}

func newClock() *clock {
	now := time.Now().UTC().Truncate(time.Second)
	return &clock{epoch: now.Add(-time.Second), logical: map[int64]int64{}, latest: now.Unix() - 1}
}

// seedTime is the timestamp of `current`'s logical time t.
func (c *clock) seedTime(t int64) string {
	stamp := c.epoch.Add(time.Duration(t) * time.Second)
	c.logical[stamp.Unix()] = t
	return stamp.Format(time.RFC3339)
}

// waitForNewSecond sleeps until the wall clock is past every second a step stamped.
func (c *clock) waitForNewSecond() {
	for {
		now := time.Now()
		if now.Unix() > c.latest {
			return
		}
		time.Sleep(time.Unix(c.latest+1, 0).Sub(now) + time.Millisecond)
	}
}

// stepTimes gives entries the logical times of their timestamps; a timestamp never seen
// before was stamped by step n.
func (c *clock) entries(fields []metav1.ManagedFieldsEntry, n int64) []ManagedEntry {
	entries := make([]ManagedEntry, 0, len(fields))
	for _, field := range fields {
		entry := ManagedEntry{Manager: field.Manager, Operation: string(field.Operation),
			APIVersion: field.APIVersion, Subresource: field.Subresource}
		if field.FieldsV1 != nil {
			entry.FieldsV1 = json.RawMessage(field.FieldsV1.Raw)
		}
		if field.Time != nil {
			second := field.Time.Unix()
			logical, seen := c.logical[second]
			if !seen {
				logical = n
				c.logical[second] = n
				if second > c.latest {
					c.latest = second
				}
			}
			entry.Time = &logical
		}
		entries = append(entries, entry)
	}
	return entries
}

// withTimestamps is an object as the fake gets it: its managedFields entries (`current`'s,
// or those a step's object or merge patch carries) with timestamps for their integer
// times and fieldsType FieldsV1, as a client builds such an object. An object without
// such entries is returned unchanged.
func (c *clock) withTimestamps(raw json.RawMessage) ([]byte, error) {
	if !isObject(raw) || !bytes.Contains(raw, []byte(`"managedFields"`)) {
		return raw, nil
	}
	var object map[string]interface{}
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	if err := decoder.Decode(&object); err != nil {
		return nil, fmt.Errorf("unreadable object: %v", err)
	}
	metadata, _ := object["metadata"].(map[string]interface{})
	fields, _ := metadata["managedFields"].([]interface{})
	converted := false
	for _, item := range fields {
		entry, ok := item.(map[string]interface{})
		if !ok || len(entry) == 0 {
			continue
		}
		if number, ok := entry["time"].(json.Number); ok {
			t, err := number.Int64()
			if err != nil {
				return nil, fmt.Errorf("managedFields time %v is not an integer", number)
			}
			entry["time"] = c.seedTime(t)
			converted = true
		}
		if _, ok := entry["fieldsType"]; !ok {
			entry["fieldsType"] = "FieldsV1"
			converted = true
		}
	}
	if !converted {
		return raw, nil
	}
	return json.Marshal(object)
}

// withLiveResourceVersion is an update's object as a controller writes back what it read:
// with the live object's resourceVersion, unless the object states one (or the fake keeps
// none).
func withLiveResourceVersion(raw json.RawMessage, live runtime.Object) (json.RawMessage, error) {
	accessor, err := meta.Accessor(live)
	if err != nil || accessor.GetResourceVersion() == "" || !isObject(raw) {
		return raw, err
	}
	var object map[string]interface{}
	decoder := json.NewDecoder(bytes.NewReader(raw))
	decoder.UseNumber()
	if err := decoder.Decode(&object); err != nil {
		return nil, err
	}
	metadata, ok := object["metadata"].(map[string]interface{})
	if !ok {
		return raw, nil
	}
	if _, stated := metadata["resourceVersion"]; stated {
		return raw, nil
	}
	metadata["resourceVersion"] = accessor.GetResourceVersion()
	return json.Marshal(object)
}

// serverOwned are the metadata members a document is reported without.
var serverOwned = []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"}

// report is one successful step's result: the object read back from the fake.
func report(typed runtime.Object, object map[string]interface{}, fields []metav1.ManagedFieldsEntry, changed bool, c *clock, n int64) (StepResult, error) {
	if !rawDocuments {
		pruneZeroStructs(reflect.ValueOf(typed), object)
	}
	if metadata, ok := object["metadata"].(map[string]interface{}); ok {
		for _, key := range serverOwned {
			delete(metadata, key)
		}
	}
	document, err := json.Marshal(object)
	if err != nil {
		return StepResult{}, err
	}
	entries := c.entries(fields, n)
	return StepResult{Document: document, ManagedFields: &entries, Changed: &changed}, nil
}

// rawDocuments (PATCHCONF_PEER_RAW_DOCUMENTS=1) reports documents exactly as encoded,
// zero-valued structs included.
var rawDocuments = os.Getenv("PATCHCONF_PEER_RAW_DOCUMENTS") == "1"

// pruneZeroStructs removes from the encoded object what Go's JSON encoder writes for a
// zero-valued struct field that is not a pointer (`status: {}`, `strategy: {}`,
// `resources: {}`, `creationTimestamp: null`): a typed object cannot tell such a field from
// an absent one (a real API server writes them too; the live target renders them into the
// expectation instead). Pointers that are set, maps, lists and scalars are kept as they are.
func pruneZeroStructs(value reflect.Value, encoded interface{}) {
	for value.Kind() == reflect.Pointer || value.Kind() == reflect.Interface {
		if value.IsNil() {
			return
		}
		value = value.Elem()
	}
	switch value.Kind() {
	case reflect.Struct:
		object, ok := encoded.(map[string]interface{})
		if !ok {
			return
		}
		for i := 0; i < value.NumField(); i++ {
			field := value.Type().Field(i)
			if !field.IsExported() {
				continue
			}
			tag := field.Tag.Get("json")
			name, options, _ := strings.Cut(tag, ",")
			if name == "-" {
				continue
			}
			if (field.Anonymous && name == "") || strings.Contains(","+options+",", ",inline,") {
				pruneZeroStructs(value.Field(i), object)
				continue
			}
			if name == "" {
				name = field.Name
			}
			member, present := object[name]
			if !present {
				continue
			}
			if field.Type.Kind() == reflect.Struct && value.Field(i).IsZero() && emptyEncoding(member) {
				delete(object, name)
				continue
			}
			pruneZeroStructs(value.Field(i), member)
		}
	case reflect.Slice, reflect.Array:
		items, ok := encoded.([]interface{})
		if !ok || len(items) != value.Len() {
			return
		}
		for i := range items {
			pruneZeroStructs(value.Index(i), items[i])
		}
	case reflect.Map:
		object, ok := encoded.(map[string]interface{})
		if !ok || value.Type().Key().Kind() != reflect.String {
			return
		}
		for _, key := range value.MapKeys() {
			if member, present := object[key.String()]; present {
				pruneZeroStructs(value.MapIndex(key), member)
			}
		}
	}
}

func emptyEncoding(member interface{}) bool {
	if member == nil {
		return true
	}
	object, ok := member.(map[string]interface{})
	return ok && len(object) == 0
}

var conflictOwner = regexp.MustCompile(`^conflict with ("(?:[^"\\]|\\.)*")`)

// classify maps the fake's error onto patchconf's classes: the Status the fake returns
// (409 with FieldManagerConflict causes, 422, 400) or, for a plain error, its text.
func classify(err error) *StepError {
	answer := &StepError{Class: "unclassified", Message: err.Error()}
	var status apierrors.APIStatus
	if errors.As(err, &status) {
		s := status.Status()
		answer.Status, answer.Reason = s.Code, string(s.Reason)
		switch {
		case s.Code == 409:
			answer.Class = "conflict"
			if s.Details != nil {
				for _, cause := range s.Details.Causes {
					if cause.Type != metav1.CauseTypeFieldManagerConflict {
						continue
					}
					manager := cause.Message
					if match := conflictOwner.FindStringSubmatch(cause.Message); match != nil {
						if unquoted, err := strconv.Unquote(match[1]); err == nil {
							manager = unquoted
						}
					}
					answer.Conflicts = append(answer.Conflicts, Conflict{Manager: manager, Field: cause.Field})
				}
			}
		case s.Code == 422:
			answer.Class = "invalid"
		case s.Code == 415:
			answer.Class = "unsupported-media-type"
		case s.Code == 400:
			// The field manager's refusals of an apply body: "metadata.managedFields must be
			// nil", "invalid object type: <gvk>".
			answer.Class = "invalid-patch"
		}
		return answer
	}
	message := err.Error()
	switch {
	case strings.Contains(message, "failed to create typed patch object"),
		strings.Contains(message, "error converting YAML to JSON"),
		strings.Contains(message, "cannot unmarshal"):
		answer.Class = "invalid-patch"
	}
	return answer
}

// Opener makes the fake holding the case's object, seeded with `current` (nil: none); a
// non-empty skip declines the case.
type Opener func(id ObjectID, seed []byte) (store Store, skip string, err error)

// Run sends the case's steps through the fake, one result per step.
func Run(c *Case, id ObjectID, open Opener) ([]StepResult, string, error) {
	clk := newClock()
	var seed []byte
	if isObject(c.Current) {
		var err error
		if seed, err = clk.withTimestamps(c.Current); err != nil {
			return nil, "", fmt.Errorf("current: %v", err)
		}
	}
	store, skip, err := open(id, seed)
	if skip != "" || err != nil {
		return nil, skip, err
	}
	for index, s := range c.Steps {
		if s.Op == "csa-upgrade" || s.Op == "kubectl-apply-server-side" || s.Op == "kubectl-apply" {
			// client-go's csaupgrade and kubectl's apply sequence run over a real client; the
			// fake is judged on the requests themselves
			return nil, fmt.Sprintf("step %d: op %s is a client's sequence of requests, not one request to the fake", index+1, s.Op), nil
		}
	}
	results := make([]StepResult, 0, len(c.Steps))
	for index, s := range c.Steps {
		n := int64(index + 1)
		var err error
		if s.Object, err = clk.withTimestamps(s.Object); err != nil {
			return nil, "", fmt.Errorf("step %d: object: %v", n, err)
		}
		if s.PatchType != "json-patch" {
			if s.Patch, err = clk.withTimestamps(s.Patch); err != nil {
				return nil, "", fmt.Errorf("step %d: patch: %v", n, err)
			}
		}
		clk.waitForNewSecond()
		before, err := store.Get()
		if err != nil {
			return nil, "", fmt.Errorf("step %d: reading the object before the request: %v", n, err)
		}
		name := id.Name
		if isObject(s.Object) {
			var head struct {
				Metadata struct {
					Name string `json:"name"`
				} `json:"metadata"`
			}
			if json.Unmarshal(s.Object, &head) == nil && head.Metadata.Name != "" {
				name = head.Metadata.Name
			}
		}
		if s.Op == "update" && before != nil {
			if s.Object, err = withLiveResourceVersion(s.Object, before); err != nil {
				return nil, "", fmt.Errorf("step %d: object: %v", n, err)
			}
		}
		switch s.Op {
		case "apply":
			err = store.Apply(s, name)
		case "update":
			err = store.Update(s)
		case "patch":
			patchType, known := patchTypes[s.PatchType]
			if !known {
				return nil, fmt.Sprintf("step %d: patch type %q is not one the fake's clients send", n, s.PatchType), nil
			}
			err = store.Patch(s, name, patchType)
		default:
			return nil, "", fmt.Errorf("step %d: unknown op %q", n, s.Op)
		}
		if err != nil {
			results = append(results, StepResult{Error: classify(err)})
			continue
		}
		after, err := store.Get()
		if err != nil || after == nil {
			return nil, "", fmt.Errorf("step %d: reading the object back: %v", n, err)
		}
		object, err := runtime.DefaultUnstructuredConverter.ToUnstructured(after)
		if err != nil {
			return nil, "", fmt.Errorf("step %d: the object read back: %v", n, err)
		}
		accessor, err := meta.Accessor(after)
		if err != nil {
			return nil, "", err
		}
		result, err := report(after, object, accessor.GetManagedFields(), store.Wrote(before, after), clk, n)
		if err != nil {
			return nil, "", fmt.Errorf("step %d: %v", n, err)
		}
		results = append(results, result)
	}
	return results, "", nil
}
