package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
)

// benchResult is what `upstream bench` prints: one JSON object on stdout.
type benchResult struct {
	Kubernetes string    `json:"kubernetes"`
	Kind       string    `json:"kind"`
	Repeat     int       `json:"repeat"`
	MedianMs   float64   `json:"median_ms"`
	MinMs      float64   `json:"min_ms"`
	TimingsMs  []float64 `json:"timings_ms"`
}

// runBench times strategicpatch.StrategicMergePatch on the bytes of two files, as
// benchmarks/strategic_apply.py asks: `upstream bench --object F --patch F [--repeat N]
// [--out F]`. StrategicMergePatch takes and returns JSON bytes, so one timed operation
// includes the JSON parse of object and patch and the dump of the result, like the
// reference's figure. The patch metadata comes from the typed object of the document's
// built-in kind, as for a `strategic` case; it is made once, outside the timing.
func runBench(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("bench", flag.ContinueOnError)
	flags.SetOutput(stderr)
	objectPath := flags.String("object", "", "JSON file of the object to patch")
	patchPath := flags.String("patch", "", "JSON file of the strategic merge patch")
	repeat := flags.Int("repeat", 5, "timed operations (after one untimed warm-up)")
	outPath := flags.String("out", "", "write the patched document here (to compare with another implementation)")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if *objectPath == "" || *patchPath == "" || *repeat < 1 {
		fmt.Fprintln(stderr, "usage: upstream bench --object FILE --patch FILE [--repeat N] [--out FILE]")
		return 2
	}
	original, err := os.ReadFile(*objectPath)
	if err != nil {
		fmt.Fprintf(stderr, "patchconf-upstream bench: %v\n", err)
		return 1
	}
	patch, err := os.ReadFile(*patchPath)
	if err != nil {
		fmt.Fprintf(stderr, "patchconf-upstream bench: %v\n", err)
		return 1
	}
	var header struct {
		APIVersion string `json:"apiVersion"`
		Kind       string `json:"kind"`
	}
	if err := json.Unmarshal(original, &header); err != nil {
		fmt.Fprintf(stderr, "patchconf-upstream bench: %s: %v\n", *objectPath, err)
		return 1
	}
	gvk := schema.FromAPIVersionAndKind(header.APIVersion, header.Kind)
	typed, err := builtinObject(gvk)
	if err != nil {
		fmt.Fprintf(stderr, "patchconf-upstream bench: %v\n", err)
		return 1
	}
	patched, err := strategicpatch.StrategicMergePatch(original, patch, typed) // warm-up, and the answer
	if err != nil {
		fmt.Fprintf(stderr, "patchconf-upstream bench: StrategicMergePatch: %v\n", err)
		return 1
	}
	if *outPath != "" {
		if err := os.WriteFile(*outPath, patched, 0o644); err != nil {
			fmt.Fprintf(stderr, "patchconf-upstream bench: %v\n", err)
			return 1
		}
	}
	timings := make([]float64, 0, *repeat)
	for i := 0; i < *repeat; i++ {
		started := time.Now()
		if _, err := strategicpatch.StrategicMergePatch(original, patch, typed); err != nil {
			fmt.Fprintf(stderr, "patchconf-upstream bench: StrategicMergePatch: %v\n", err)
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
	answer, _ := json.Marshal(benchResult{
		Kubernetes: kubernetesVersion(), Kind: gvk.String(), Repeat: *repeat,
		MedianMs: median, MinMs: sorted[0], TimingsMs: timings,
	})
	fmt.Fprintln(stdout, string(answer))
	return 0
}
