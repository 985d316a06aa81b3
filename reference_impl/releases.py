"""The two Kubernetes releases patchconf answers at unless told another.

They differ on purpose. The corpus's answers are judged at the release Kubernetes' own code is
pinned to in targets/upstream (k8s.io modules v0.32): its strategic merge schemas and its
server-side apply rules. Server-side apply types a built-in object with OpenAPI models bundled
from the live control plane's release (targets/apiserver builds v1.33.13), the server whose
answers confirm the corpus's server-side apply cases.
"""

from __future__ import annotations

# The release whose strategic merge schemas and server-side apply rules apply unless a case or a
# caller names another (``reference`` is ``reference:1.32``).
CORPUS_RELEASE = "1.32"
# The release of the bundled OpenAPI models (models/kubernetes-1.33.json) built-in kinds are
# typed with unless a case's schema names another.
LIVE_RELEASE = "1.33"
