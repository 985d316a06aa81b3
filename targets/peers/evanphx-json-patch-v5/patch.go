package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"patchconf.dev/targets/peerkit"
	"strconv"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
)

var patchTypes = []string{"json-patch", "merge-patch", "merge-patch-2way"}

func (c *patchCase) run() peerkit.Answer {
	need := map[string][]json.RawMessage{
		"json-patch":       {c.Original, c.Patch},
		"merge-patch":      {c.Original, c.Patch},
		"merge-patch-2way": {c.Original, c.Modified},
	}
	inputs, known := need[c.Type]
	if !known {
		return peerkit.Skip(fmt.Sprintf("patch type %q is not served by %s", c.Type, libraryModule))
	}
	for _, in := range inputs {
		if in == nil {
			return peerkit.Skip(fmt.Sprintf("a %s case needs both of its inputs", c.Type))
		}
	}
	switch c.Type {
	case "json-patch":
		patch, err := jsonpatch.DecodePatch(c.Patch)
		if err != nil {
			return peerkit.Fail("invalid-patch", err)
		}
		document, err := patch.Apply(c.Original)
		if err != nil {
			return peerkit.Fail(classifyApply(err), err)
		}
		return peerkit.Result(&result{Document: document})
	case "merge-patch":
		document, err := jsonpatch.MergePatch(c.Original, c.Patch)
		if err != nil {
			return peerkit.Fail(classifyMerge(err), err)
		}
		return peerkit.Result(&result{Document: document})
	default:
		patch, err := jsonpatch.CreateMergePatch(c.Original, c.Modified)
		if err != nil {
			return peerkit.Fail(classifyMerge(err), err)
		}
		out := &result{Patch: patch}
		if document, err := jsonpatch.MergePatch(c.Original, patch); err == nil {
			out.Document = document
		}
		return peerkit.Result(out)
	}
}

// classifyApply maps an error of Patch.Apply onto patchconf's classes where the library's
// error value says which it is; anything else is "unclassified".
func classifyApply(err error) string {
	message := err.Error()
	switch {
	case errors.Is(err, jsonpatch.ErrTestFailed):
		return "test-failed"
	case errors.Is(err, jsonpatch.ErrInvalidIndex):
		return "invalid-index"
	case errors.Is(err, jsonpatch.ErrMissing):
		// ErrMissing also marks an operation without its path/from/value member: the patch
		// is malformed, nothing is missing from the document.
		for _, malformed := range []string{"failed to decode", "missing path field", "missing from field",
			"missing value field"} {
			if strings.Contains(message, malformed) {
				return "invalid-patch"
			}
		}
		return "path-not-found"
	case err == jsonpatch.ErrInvalid: // bare only: the document is not JSON (wrapped, it means other things)
		return "invalid-document"
	case errors.Is(err, jsonpatch.ErrExpectedObject):
		return "invalid-document"
	}
	var badNumber *strconv.NumError
	if errors.As(err, &badNumber) || strings.Contains(message, "not a proper array index") {
		return "invalid-index" // an array index token that is not a decimal number (strconv.Atoi)
	}
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	if errors.As(err, &syntax) || errors.As(err, &typeErr) {
		return "invalid-document" // the document is not an object or array it can patch
	}
	return "unclassified"
}

// classifyMerge maps MergePatch / CreateMergePatch errors: the library's own error values.
func classifyMerge(err error) string {
	switch {
	case errors.Is(err, jsonpatch.ErrBadJSONDoc):
		return "invalid-document"
	case errors.Is(err, jsonpatch.ErrBadJSONPatch):
		return "invalid-patch"
	case strings.Contains(err.Error(), "Mismatched JSON Documents"): // errBadMergeTypes, unexported
		return "type-mismatch"
	}
	return "unclassified"
}
