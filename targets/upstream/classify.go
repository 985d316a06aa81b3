package main

import (
	"encoding/json"
	"errors"
	"regexp"
	"strings"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	"k8s.io/apimachinery/pkg/util/mergepatch"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// classify maps an upstream error onto patchconf's error classes: upstream's own error
// values and types first (json-patch's ErrMissing/ErrTestFailed/ErrInvalidIndex, wrapped
// with github.com/pkg/errors, which errors.Is unwraps; apimachinery's mergepatch errors),
// then the wording of errors upstream builds with fmt.Errorf.
func classify(err error) string {
	var fieldNotFound strategicpatch.FieldNotFoundError
	var invalidType strategicpatch.InvalidTypeError
	switch {
	case mergepatch.IsPreconditionFailed(err):
		return "precondition-failed"
	case mergepatch.IsConflict(err):
		return "conflict"
	case errors.Is(err, jsonpatch.ErrTestFailed):
		return "test-failed"
	case errors.Is(err, jsonpatch.ErrInvalidIndex):
		return "invalid-index"
	case errors.Is(err, jsonpatch.ErrMissing):
		return "path-not-found"
	case errors.Is(err, jsonpatch.ErrBadJSONDoc), errors.Is(err, mergepatch.ErrBadJSONDoc):
		return "invalid-document"
	case errors.Is(err, jsonpatch.ErrBadJSONPatch):
		return "invalid-patch"
	case errors.Is(err, mergepatch.ErrNoListOfLists):
		return "list-of-lists"
	case errors.Is(err, mergepatch.ErrBadPatchFormatForRetainKeys),
		errors.Is(err, mergepatch.ErrPatchContentNotMatchRetainKeys):
		return "retain-keys-violation"
	case errors.Is(err, mergepatch.ErrBadPatchFormatForPrimitiveList),
		errors.Is(err, mergepatch.ErrBadPatchFormatForSetElementOrderList):
		return "invalid-directive"
	case errors.Is(err, mergepatch.ErrUnsupportedStrategicMergePatchFormat):
		return "no-strategic-schema"
	case errors.As(err, &fieldNotFound):
		return "no-strategic-schema"
	case errors.As(err, &invalidType):
		return "type-mismatch"
	}
	return classifyMessage(err.Error())
}

// messagePatterns classify errors upstream creates with fmt.Errorf (no value or type to
// test). First match wins. The kubectl target (harness/targets/kubectl.py) matches the
// same upstream wording.
var messagePatterns = []struct {
	re    *regexp.Regexp
	class string
}{
	{regexp.MustCompile(`precondition failed for:|At least one of apiVersion, kind and name was changed`), "precondition-failed"},
	{regexp.MustCompile(`conflicts with changes made from original to current`), "conflict"},
	{regexp.MustCompile(`not supported for .* locally|unable to find api field|unable to find schema`), "no-strategic-schema"},
	{regexp.MustCompile(`does not contain declared merge key|cannot merge lists without merge key|cannot find merge key`), "merge-key-missing"},
	// Checked before the directive patterns: its message quotes the offending elements, which may hold "$patch".
	{regexp.MustCompile(`list element types are not identical`), "type-mismatch"},
	// Checked before retainKeys: its message quotes the elements, which may name "$retainKeys".
	{regexp.MustCompile(`doesn't match \$setElementOrder`), "invalid-directive"},
	// Checked before retainKeys: mergepatch.ErrBadPatchType quotes the map, which may hold "$retainKeys".
	{regexp.MustCompile(`unknown patch type: .* in map:`), "invalid-directive"},
	{regexp.MustCompile(`retainKeys`), "retain-keys-violation"},
	{regexp.MustCompile(`lists of lists|list of lists`), "list-of-lists"},
	{regexp.MustCompile(`Unknown patch type|unknown patch type|\$patch|directive|doesn't match \$setElementOrder|merging lists cannot yet be specified in the patch`), "invalid-directive"},
	{regexp.MustCompile(`test failed`), "test-failed"},
	{regexp.MustCompile(`invalid index referenced|proper array index|invalid syntax|out of range`), "invalid-index"},
	{regexp.MustCompile(`missing value|nonexistent key|doc is missing`), "path-not-found"},
	{regexp.MustCompile(`Invalid JSON Document`), "invalid-document"},
	// json-patch v4.13.0 (Kubernetes 1.35+) reports a root replaced by a scalar; earlier lines ignored it.
	{regexp.MustCompile(`operation value must be object or array`), "invalid-patch"},
	{regexp.MustCompile(`Invalid JSON Patch|Unexpected kind|cannot unmarshal|invalid JSON|unexpected end`), "invalid-patch"},
	{regexp.MustCompile(`Mismatched JSON Documents|but received a|data type is not struct|list element types are not identical|is not a map|invalid type|doesn't match|does not match|expected .* but got`), "type-mismatch"},
}

func classifyMessage(message string) string {
	for _, p := range messagePatterns {
		if p.re.MatchString(message) {
			return p.class
		}
	}
	return "unclassified"
}

// classifyJSONPatch classifies an error from jsonpatch.Patch.Apply (the patch itself was
// decoded by DecodePatch already).
func classifyJSONPatch(err error) string {
	// Only ApplyIndent's own decoding of the document returns a bare encoding/json error;
	// everything an operation returns is wrapped.
	switch err.(type) {
	case *json.SyntaxError, *json.UnmarshalTypeError:
		return "invalid-document"
	}
	// A malformed operation (no `path`/`from`, or not a string) is wrapped as ErrMissing
	// upstream ("add operation failed to decode path: missing value"): the patch is invalid,
	// no path is missing from the document.
	message := err.Error()
	for _, malformed := range []string{
		"failed to decode path", "failed to decode from", "missing path field",
		"missing from field", "missing value field",
	} {
		if strings.Contains(message, malformed) {
			return "invalid-patch"
		}
	}
	return classify(err)
}

// classifyStrategic classifies an error from a strategicpatch function over a document and
// a second input (the patch, or the modified document). strategicpatch reports either
// input not being a JSON object as the same mergepatch.ErrBadJSONDoc; the class says which.
func classifyStrategic(err error, document, other input, otherName string) string {
	if errors.Is(err, mergepatch.ErrBadJSONDoc) {
		if !document.isObject() && !document.isNull() {
			return "invalid-document"
		}
		if otherName == "patch" {
			return "invalid-patch"
		}
		return "invalid-document"
	}
	return classify(err)
}

// classifyDocuments classifies errors from functions whose inputs are all documents
// (creating patches): a JSON decoding error means one of them is not of a usable shape.
func classifyDocuments(err error) string {
	var syntaxErr *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntaxErr) || errors.As(err, &typeErr) {
		return "invalid-document"
	}
	return classify(err)
}
