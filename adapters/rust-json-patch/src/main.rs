//! patchconf command-protocol adapter (harness/PROTOCOL.md) for the `json-patch` crate, the
//! JSON Patch behind kube-rs's `Patch::Json`.
//!
//! - `json-patch`: the patch is read as the crate's `Patch` type (`serde_json::from_value`),
//!   then `json_patch::patch(&mut document, &patch)`, which undoes its earlier operations
//!   when one fails. A patch the type refuses is `invalid-patch`; of the crate's error
//!   kinds `TestFailed` is `test-failed`, the others (`InvalidPointer` for a missing member
//!   and a bad index alike, `InvalidFromPointer`, `CannotMoveInsideItself`) `unclassified`.
//! - `merge-patch`: `library::merge(&mut document, &patch)` (RFC 7396; it cannot fail).
//!
//! Both follow the RFCs (`rfc` profile). Numbers are exact (the kit's serde_json
//! `arbitrary_precision`). The protocol is the Rust kit's (adapters/kit/rust).
//!
//!   patchconf run --target "cmd:adapters/target/release/rust-json-patch"
//!
//! With `--features previous` it is built against an older release (tox -e peer-history:
//! `--target-dir adapters/target/previous`).

#[cfg(not(feature = "previous"))]
use json_patch as library;
#[cfg(feature = "previous")]
use json_patch_previous as library;

use library::{Patch, PatchErrorKind};
use patchconf_adapter::{Adapter, Answer, Capabilities, Implementation};
use serde_json::Value;

/// The crate version Cargo.toml pins (`=`) and Cargo.lock locks; tests/test_adapters.py checks they agree.
#[cfg(not(feature = "previous"))]
const JSON_PATCH_VERSION: &str = "5.0.0";
#[cfg(feature = "previous")]
const JSON_PATCH_VERSION: &str = "2.0.0";

fn answer(case: &Value) -> Answer {
    let mut document = case["original"].clone();
    if case["type"] == "merge-patch" {
        library::merge(&mut document, &case["patch"]);
        return Answer::document(document);
    }
    let patch: Patch = match serde_json::from_value(case["patch"].clone()) {
        Ok(patch) => patch,
        Err(err) => return Answer::fail("invalid-patch", format!("not a JSON Patch: {err}")),
    };
    match library::patch(&mut document, &patch) {
        Ok(()) => Answer::document(document),
        Err(err) => {
            let class = match err.kind {
                PatchErrorKind::TestFailed => "test-failed",
                _ => "unclassified",
            };
            Answer::fail(class, err)
        }
    }
}

fn main() {
    Adapter {
        implementation: Implementation::new("rust-json-patch", JSON_PATCH_VERSION, "https://github.com/idubrov/json-patch"),
        capabilities: Capabilities { patch_types: &["json-patch", "merge-patch"], schemas: &["none"], profile: "rfc" },
        answer,
    }
    .main();
}
