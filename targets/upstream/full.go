//go:build !patchconf_patch

package main

// A full build also answers server-side apply and `upstream decode`, which run the apiserver's
// own scheme, defaults, conversions and registry strategies from k8s.io/kubernetes. Built with
// -tags patchconf_patch, the program leaves them out and compiles in a third of the time
// (README.md: Two builds): JSON Patch, merge patch, strategic merge patch and client-side apply
// need only apimachinery, client-go and kubectl.
func init() {
	patchTypes = append(patchTypes, "server-side-apply")
	caseRunners["server-side-apply"] = (*patchCase).serverSideApply
	modes["decode"] = runDecode
}
