"""Server-side apply: a readable port of sigs.k8s.io/structured-merge-diff and the apiserver's
field managers."""
