package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// benchResult is what `upstream bench` prints: one JSON object on stdout.
type benchResult struct {
	Kubernetes string    `json:"kubernetes"`
	Kind       string    `json:"kind"`
	Op         string    `json:"op"`
	Repeat     int       `json:"repeat"`
	MedianMs   float64   `json:"median_ms"`
	MinMs      float64   `json:"min_ms"`
	TimingsMs  []float64 `json:"timings_ms"`
}

const benchUsage = "usage: upstream bench [--op apply] --object FILE --patch FILE [--repeat N] [--out FILE]\n" +
	"       upstream bench --op two-way --original FILE --modified FILE [--repeat N] [--out FILE]\n" +
	"       upstream bench --op three-way --original FILE --modified FILE --current FILE [--repeat N] [--out FILE]"

// runBench times one strategicpatch call on the bytes of files, as benchmarks/strategic_apply.py
// asks. `--op apply` (the default) times StrategicMergePatch(object, patch, obj); `--op two-way`
// CreateTwoWayMergePatch(original, modified, obj); `--op three-way`
// CreateThreeWayMergePatch(original, modified, current, lookup, true) as kubectl apply calls
// it. Each takes and returns JSON bytes, so one timed operation includes the JSON parse of
// its inputs and the dump of its answer, like the reference's figure. obj is the typed
// object of the document's built-in kind, as for a case; it and the lookup are made once,
// outside the timing. One untimed warm-up writes its answer to --out.
func runBench(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("bench", flag.ContinueOnError)
	flags.SetOutput(stderr)
	op := flags.String("op", "apply", "apply, two-way or three-way")
	objectPath := flags.String("object", "", "apply: JSON file of the object to patch")
	patchPath := flags.String("patch", "", "apply: JSON file of the strategic merge patch")
	originalPath := flags.String("original", "", "two-way, three-way: JSON file of the original (last-applied) document")
	modifiedPath := flags.String("modified", "", "two-way, three-way: JSON file of the modified document")
	currentPath := flags.String("current", "", "three-way: JSON file of the current (live) object")
	repeat := flags.Int("repeat", 5, "timed operations (after one untimed warm-up)")
	outPath := flags.String("out", "", "write the operation's answer here (to compare with another implementation)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	var paths []string // the operation's inputs, in call order; the first names the kind
	switch *op {
	case "apply":
		paths = []string{*objectPath, *patchPath}
	case "two-way":
		paths = []string{*originalPath, *modifiedPath}
	case "three-way":
		paths = []string{*modifiedPath, *originalPath, *currentPath}
	}
	if paths == nil || *repeat < 1 || slices.Contains(paths, "") {
		fmt.Fprintln(stderr, benchUsage)
		return 2
	}
	inputs := make([][]byte, len(paths))
	for i, path := range paths {
		data, err := os.ReadFile(path)
		if err != nil {
			fmt.Fprintf(stderr, "patchconf-upstream bench: %v\n", err)
			return 1
		}
		inputs[i] = data
	}
	var header struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(inputs[0], &header); err != nil {
		fmt.Fprintf(stderr, "patchconf-upstream bench: %s: %v\n", paths[0], err)
		return 1
	}
	gvk := schema.FromAPIVersionAndKind(header.APIVersion, header.Kind)
	typed, err := builtinObject(gvk)
	if err != nil {
		fmt.Fprintf(stderr, "patchconf-upstream bench: %v\n", err)
		return 1
	}
	var operation func() ([]byte, error)
	switch *op {
	case "apply":
		operation = func() ([]byte, error) { return strategicpatch.StrategicMergePatch(inputs[0], inputs[1], typed) }
	case "two-way":
		operation = func() ([]byte, error) { return strategicpatch.CreateTwoWayMergePatch(inputs[0], inputs[1], typed) }
	case "three-way":
		lookup, err := strategicpatch.NewPatchMetaFromStruct(typed)
		if err != nil {
			fmt.Fprintf(stderr, "patchconf-upstream bench: %v\n", err)
			return 1
		}
		modified, original, current := inputs[0], inputs[1], inputs[2]
		operation = func() ([]byte, error) {
			return strategicpatch.CreateThreeWayMergePatch(original, modified, current, lookup, true)
		}
	}
	answer, err := operation() // warm-up, and the answer
	if err != nil {
		fmt.Fprintf(stderr, "patchconf-upstream bench: %s: %v\n", *op, err)
		return 1
	}
	if *outPath != "" {
		if err := os.WriteFile(*outPath, answer, 0o644); err != nil {
			fmt.Fprintf(stderr, "patchconf-upstream bench: %v\n", err)
			return 1
		}
	}
	timings := make([]float64, 0, *repeat)
	for i := 0; i < *repeat; i++ {
		started := time.Now()
		if _, err := operation(); err != nil {
			fmt.Fprintf(stderr, "patchconf-upstream bench: %s: %v\n", *op, err)
			return 1
		}
		timings = append(timings, float64(time.Since(started).Nanoseconds())/1e6)
	}
	sorted := append([]float64(nil), timings...)
	sort.Float64s(sorted)
	median := sorted[len(sorted)/2]
	if len(sorted)%2 == 0 {
		median = (sorted[len(sorted)/2-1] + sorted[len(sorted)/2]) / 2
	}
	report, _ := json.Marshal(benchResult{
		Kubernetes: kubernetesVersion(), Kind: gvk.String(), Op: *op, Repeat: *repeat,
		MedianMs: median, MinMs: sorted[0], TimingsMs: timings,
	})
	fmt.Fprintln(stdout, string(report))
	return 0
}
