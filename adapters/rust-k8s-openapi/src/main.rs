//! patchconf command-protocol adapter (harness/PROTOCOL.md) for `k8s-openapi`'s `DeepMerge`.
//!
//! k8s-openapi's typed Kubernetes objects implement `DeepMerge`: `current.merge_from(new)`
//! merges field by field, lists by their `x-kubernetes-list-type` / patch merge key (items
//! with the same key merged, new ones appended), maps key by key, a `None` in `new`
//! leaving the field as it is. That is the strategic merge the crate offers, so this adapter
//! runs `strategic` cases on built-in kinds (`schemas: builtin`, `kubernetes` profile): the
//! original and the patch are each read as the type k8s-openapi has for the case's
//! apiVersion/kind (`serde_json::from_value`), then `original.merge_from(patch)`, and the
//! merged object written back (`serde_json::to_value`). The typed reading is part of the
//! call: unknown fields and `$patch` directives are dropped, a `null` is "no change".
//!
//! Errors: a kind with no k8s-openapi type, an original or a patch its type cannot read,
//! are `unclassified` (the crate has no error classes; merging itself cannot fail).
//! The protocol is the Rust kit's (adapters/kit/rust), numbers exact.
//!
//!   patchconf run --target "cmd:adapters/target/release/rust-k8s-openapi" --type strategic
//!
//! With `--no-default-features --features previous` it is built against an older release
//! (tox -e peer-history: `--target-dir adapters/target/previous`).

#[cfg(feature = "previous")]
extern crate k8s_openapi_previous as k8s_openapi;

use k8s_openapi::{DeepMerge, Resource};
use patchconf_adapter::{Adapter, Answer, Capabilities, Implementation};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

/// The crate version Cargo.toml pins (`=`) and Cargo.lock locks; tests/test_adapters.py checks they agree.
#[cfg(not(feature = "previous"))]
const K8S_OPENAPI_VERSION: &str = "0.29.0";
#[cfg(feature = "previous")]
const K8S_OPENAPI_VERSION: &str = "0.25.0";

/// `original.merge_from(patch)` as the type `T`.
fn merge<T>(original: &Value, patch: &Value) -> Answer
where
    T: Resource + DeepMerge + DeserializeOwned + Serialize,
{
    let mut merged: T = match serde_json::from_value(original.clone()) {
        Ok(object) => object,
        Err(err) => return Answer::fail("unclassified", format!("the original is not a {}: {err}", T::KIND)),
    };
    let patch: T = match serde_json::from_value(patch.clone()) {
        Ok(object) => object,
        Err(err) => return Answer::fail("unclassified", format!("the patch is not a {}: {err}", T::KIND)),
    };
    merged.merge_from(patch);
    match serde_json::to_value(&merged) {
        Ok(document) => Answer::document(document),
        Err(err) => Answer::fail("unclassified", format!("cannot write the merged {}: {err}", T::KIND)),
    }
}

/// `merge_as(api_version, kind, original, patch)`: [`merge`] as the type listed for that
/// apiVersion and kind, or None when k8s-openapi has none.
macro_rules! kinds {
    ($($kind:ty),* $(,)?) => {
        fn merge_as(api_version: &str, kind: &str, original: &serde_json::Value, patch: &serde_json::Value)
            -> Option<patchconf_adapter::Answer>
        {
            $(
                if api_version == <$kind as k8s_openapi::Resource>::API_VERSION
                    && kind == <$kind as k8s_openapi::Resource>::KIND
                {
                    return Some(merge::<$kind>(original, patch));
                }
            )*
            None
        }
    };
}

include!("kinds.rs");

fn answer(case: &Value) -> Answer {
    let schema = &case["schema"];
    let (api_version, kind) = (schema["apiVersion"].as_str().unwrap_or(""), schema["kind"].as_str().unwrap_or(""));
    merge_as(api_version, kind, &case["original"], &case["patch"]).unwrap_or_else(|| {
        Answer::fail("unclassified", format!("k8s-openapi has no type for apiVersion {api_version:?}, kind {kind:?}"))
    })
}

fn main() {
    Adapter {
        implementation: Implementation::new("rust-k8s-openapi", K8S_OPENAPI_VERSION, "https://github.com/Arnavion/k8s-openapi"),
        capabilities: Capabilities { patch_types: &["strategic"], schemas: &["builtin"], profile: "kubernetes" },
        answer,
    }
    .main();
}
