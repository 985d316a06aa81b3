//go:build !patchconf_patch

package main

// `upstream decode --object F.json [--operation create|update]`: the object as a kube-apiserver
// stores the body of a create (POST) or update (PUT) of a built-in kind - decoded into its Go
// type, defaulted, converted, encoded, read back through the storage codec (pipeline.go); a
// create also goes through the kind's registry strategy (strategies.go: PrepareForCreate and
// validation; other kinds get ssa.go's status reset).

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func runDecode(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("decode", flag.ContinueOnError)
	flags.SetOutput(stderr)
	objectPath := flags.String("object", "", "JSON file with the request body (apiVersion and kind name the type)")
	operation := flags.String("operation", "create", "create (POST) or update (PUT)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if *objectPath == "" || (*operation != "create" && *operation != "update") || flags.NArg() > 0 {
		fmt.Fprintln(stderr, "usage: upstream decode --object F.json [--operation create|update]")
		return 2
	}
	body, err := os.ReadFile(*objectPath)
	if err != nil {
		fmt.Fprintf(stderr, "upstream decode: %v\n", err)
		return 2
	}
	stored, failure := decodeForStorage(body, *operation == "create")
	if failure != nil {
		answer, _ := json.Marshal(map[string]interface{}{"error": failure})
		fmt.Fprintln(stdout, string(answer))
		return 1
	}
	answer, err := json.Marshal(stored)
	if err != nil {
		fmt.Fprintf(stderr, "upstream decode: %v\n", err)
		return 2
	}
	fmt.Fprintln(stdout, string(answer))
	return 0
}

// decodeForStorage: the body decoded as the server decodes it, then stored.
func decodeForStorage(body []byte, create bool) (map[string]interface{}, *ssaError) {
	content, err := decodeJSONObject(body)
	if err != nil {
		return nil, &ssaError{Class: "invalid-document", Message: err.Error()}
	}
	apiVersion, _ := content["apiVersion"].(string)
	kindName, _ := content["kind"].(string)
	gvk := schema.FromAPIVersionAndKind(apiVersion, kindName)
	if !servesGoType(gvk) {
		return nil, &ssaError{Class: "unclassified", Message: fmt.Sprintf("%s is not a built-in kind of the server's scheme", gvk)}
	}
	obj, statusErr := decodeRequest(body, gvk)
	if statusErr != nil {
		return nil, statusFailure(statusErr)
	}
	kind := &ssaKind{gvk: gvk, resource: resourceFor(gvk), builtin: true, goTypes: true, strategy: builtinStrategies[gvk.GroupKind()]}
	run := &ssaRun{kind: kind}
	if accessor, err := meta.Accessor(obj); err == nil {
		run.name, run.namespace = accessor.GetName(), accessor.GetNamespace()
	}
	strategyRan := false
	if create {
		// the kind's registry strategy (strategies.go): PrepareForCreate and validation
		var failure *ssaError
		if strategyRan, failure = run.beforeWrite(obj, true, ""); failure != nil {
			return nil, failure
		}
	}
	stored, err := storeObject(obj, gvk)
	if err != nil {
		return nil, &ssaError{Class: "unclassified", Message: err.Error()}
	}
	if create && !strategyRan {
		kind.clearStatusOnCreate(stored)
	}
	if metadata, ok := stored.Object["metadata"].(map[string]interface{}); ok {
		// what the server assigns, not the body's
		delete(metadata, "uid")
		delete(metadata, "generation")
		metadata["creationTimestamp"] = nil
		if run.namespace == "" {
			delete(metadata, "namespace")
		}
	}
	return stored.Object, nil
}
