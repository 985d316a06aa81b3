"""Prebuilt judges for patchconf: Kubernetes' own code as binaries, built by judges/judges_build.py.

``bin/`` holds ``upstream`` (Kubernetes' Go patch code at patchconf's pinned release) and
``kube-apiserver`` and ``etcd`` (its default local control plane), each with a manifest beside it
(``<name>.manifest.json``: SHA-256, Go version, modules); ``judges.json`` names the wheel's
version, platform and binaries. patchconf finds them itself (patchconf.harness.controlplane.judges)
and uses each only when it was built from the very sources patchconf would build it from.
"""

from pathlib import Path

DIRECTORY = Path(__file__).resolve().parent
BIN = DIRECTORY / "bin"
