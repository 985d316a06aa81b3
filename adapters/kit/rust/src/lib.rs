//! The protocol half of a patchconf Rust adapter (harness/PROTOCOL.md): the handshake, the
//! request loop, a panic in the library turned into that case's `unclassified` error, and
//! numbers carried exactly. An adapter supplies who it is, what it runs and one function
//! from the request's `case` to an answer:
//!
//! ```ignore
//! use patchconf_adapter::{Adapter, Answer, Capabilities, Implementation};
//!
//! Adapter {
//!     implementation: Implementation::new("rust-my-lib", "1.2.3", "https://example.org/my-lib"),
//!     capabilities: Capabilities { patch_types: &["merge-patch"], schemas: &["none"], profile: "rfc" },
//!     answer: |case| match my_lib::apply(&case["original"], &case["patch"]) {
//!         Ok(document) => Answer::document(document),
//!         Err(err) => Answer::fail("invalid-patch", err),
//!     },
//! }
//! .main();
//! ```
//!
//! Numbers: this crate turns on serde_json's `arbitrary_precision`, which Cargo's feature
//! unification gives every adapter built with it: a number is held as the text it was read
//! as, so `12345678901234567890123` and `1.0` reach the library and come back exactly as the
//! harness sent them. What the library then does with them is its own answer.

use std::io::{self, BufRead, Write};
use std::panic::{self, AssertUnwindSafe};

use serde_json::{json, Value};

/// The version of harness/PROTOCOL.md this kit speaks.
pub const PROTOCOL_VERSION: u64 = 1;

/// The handshake's `implementation`.
pub struct Implementation {
    pub name: &'static str,
    pub version: &'static str,
    pub homepage: &'static str,
}

impl Implementation {
    pub const fn new(name: &'static str, version: &'static str, homepage: &'static str) -> Self {
        Implementation { name, version, homepage }
    }
}

/// The handshake's `capabilities` (`messages` is false: the libraries' messages are their own).
pub struct Capabilities {
    pub patch_types: &'static [&'static str],
    pub schemas: &'static [&'static str],
    pub profile: &'static str,
}

/// What an adapter says about one case: a `result` object, an error of one of patchconf's
/// classes (PROTOCOL.md section 3) with the library's message, or a skip with the reason.
#[derive(Debug, PartialEq)]
pub enum Answer {
    Result(Value),
    Error { class: String, message: String },
    Skipped(String),
}

impl Answer {
    /// The result `{"document": document}`.
    pub fn document(document: Value) -> Answer {
        Answer::Result(json!({ "document": document }))
    }

    /// An error of class `class` (`unclassified` when the library does not say which).
    pub fn fail(class: &str, message: impl ToString) -> Answer {
        Answer::Error { class: class.to_string(), message: message.to_string() }
    }
}

/// One library behind the protocol. `answer` gets the request's `case` object.
pub struct Adapter {
    pub implementation: Implementation,
    pub capabilities: Capabilities,
    pub answer: fn(&Value) -> Answer,
}

impl Adapter {
    /// Serves stdin and stdout, then exits: 0 after `stop` or the end of input, 1 if the
    /// conversation itself breaks (a closed pipe).
    pub fn main(self) {
        let stdin = io::stdin();
        let stdout = io::stdout();
        if let Err(err) = self.serve(stdin.lock(), stdout.lock()) {
            eprintln!("patchconf adapter {}: {err}", self.implementation.name);
            std::process::exit(1);
        }
    }

    /// Answers request lines from `input` on `output`, one line each, until `stop` or the end of input.
    pub fn serve(&self, mut input: impl BufRead, mut output: impl Write) -> io::Result<()> {
        let mut line = Vec::new();
        loop {
            line.clear();
            if input.read_until(b'\n', &mut line)? == 0 {
                return Ok(());
            }
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match self.respond(&line) {
                None => return Ok(()),
                Some(answer) => {
                    output.write_all(encode(&answer).as_bytes())?;
                    output.write_all(b"\n")?;
                    output.flush()?;
                }
            }
        }
    }

    /// The answer to one request line, or None for `stop`.
    pub fn respond(&self, line: &[u8]) -> Option<Value> {
        let request: Value = match serde_json::from_slice(line) {
            Ok(request) => request,
            // no seq to echo: the harness names the broken exchange
            Err(err) => return Some(error_answer(Value::Null, "unclassified", &format!("unreadable request: {err}"))),
        };
        let seq = request.get("seq").cloned().unwrap_or(Value::Null);
        match request.get("cmd").and_then(Value::as_str) {
            Some("start") => Some(self.handshake()),
            Some("stop") => None,
            Some("run") => Some(self.run(seq, request.get("case").unwrap_or(&Value::Null))),
            _ => Some(error_answer(seq, "unclassified", &format!("unknown command {}", request.get("cmd").unwrap_or(&Value::Null)))),
        }
    }

    fn handshake(&self) -> Value {
        let (implementation, capabilities) = (&self.implementation, &self.capabilities);
        json!({
            "ready": true,
            "protocol": PROTOCOL_VERSION,
            "implementation": {"name": implementation.name, "version": implementation.version,
                               "language": "rust", "homepage": implementation.homepage},
            "capabilities": {"patch_types": capabilities.patch_types, "schemas": capabilities.schemas,
                             "profile": capabilities.profile, "messages": false},
        })
    }

    /// The answer to one `run` request; a panic in the library is its answer, not the program's end.
    fn run(&self, seq: Value, case: &Value) -> Value {
        if !case.is_object() {
            return error_answer(seq, "unclassified", &format!("the request's case is not an object: {case}"));
        }
        let kind = case.get("type").and_then(Value::as_str).unwrap_or("");
        if !self.capabilities.patch_types.contains(&kind) {
            return json!({"seq": seq, "skipped": format!("{} does not run {:?} cases", self.implementation.name, kind)});
        }
        let answer = panic::catch_unwind(AssertUnwindSafe(|| (self.answer)(case)))
            .unwrap_or_else(|payload| Answer::fail("unclassified", format!("panic: {}", panic_message(&payload))));
        match answer {
            Answer::Result(result) if result.is_object() => json!({"seq": seq, "result": result}),
            Answer::Result(other) => error_answer(seq, "unclassified", &format!("the adapter's answer is not a result object: {other}")),
            Answer::Error { class, message } => error_answer(seq, &class, &message),
            Answer::Skipped(reason) => json!({"seq": seq, "skipped": reason}),
        }
    }
}

fn error_answer(seq: Value, class: &str, message: &str) -> Value {
    json!({"seq": seq, "error": {"class": class, "message": message}})
}

fn panic_message(payload: &Box<dyn std::any::Any + Send>) -> String {
    if let Some(text) = payload.downcast_ref::<&str>() {
        text.to_string()
    } else if let Some(text) = payload.downcast_ref::<String>() {
        text.clone()
    } else {
        "a panic with no message".to_string()
    }
}

/// One answer line (a `Value` always serialises: serde_json holds no NaN or infinity).
fn encode(answer: &Value) -> String {
    serde_json::to_string(answer).unwrap_or_else(|err| {
        let seq = answer.get("seq").cloned().unwrap_or(Value::Null);
        error_answer(seq, "unclassified", &format!("the library's output is not JSON: {err}")).to_string()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn echo(case: &Value) -> Answer {
        match case["type"].as_str() {
            Some("json-patch") => Answer::document(case["original"].clone()),
            _ => panic!("the library broke on {}", case["id"]),
        }
    }

    fn adapter() -> Adapter {
        Adapter {
            implementation: Implementation::new("rust-echo", "1.0.0", "https://example.org"),
            capabilities: Capabilities { patch_types: &["json-patch", "merge-patch"], schemas: &["none"], profile: "rfc" },
            answer: echo,
        }
    }

    fn conversation(input: &str) -> Vec<String> {
        let mut output = Vec::new();
        adapter().serve(input.as_bytes(), &mut output).unwrap();
        String::from_utf8(output).unwrap().lines().map(str::to_string).collect()
    }

    #[test]
    fn handshake_then_exact_numbers_then_stop() {
        let lines = conversation(concat!(
            "{\"cmd\": \"start\", \"protocol\": 1}\n",
            "\n",
            "{\"cmd\": \"run\", \"seq\": 1, \"case\": {\"type\": \"json-patch\", \"original\": {\"big\": 123456789012345678901234567890, \"one\": 1.0, \"tiny\": 1e-400}}}\n",
            "{\"cmd\": \"stop\"}\n",
            "{\"cmd\": \"run\", \"seq\": 2, \"case\": {\"type\": \"json-patch\", \"original\": 1}}\n",
        ));
        assert_eq!(lines, vec![
            r#"{"capabilities":{"messages":false,"patch_types":["json-patch","merge-patch"],"profile":"rfc","schemas":["none"]},"implementation":{"homepage":"https://example.org","language":"rust","name":"rust-echo","version":"1.0.0"},"protocol":1,"ready":true}"#,
            r#"{"result":{"document":{"big":123456789012345678901234567890,"one":1.0,"tiny":1e-400}},"seq":1}"#,
        ]);
    }

    #[test]
    fn a_panic_is_the_case_answer_and_the_loop_goes_on() {
        let lines = conversation(concat!(
            "{\"cmd\": \"run\", \"seq\": 3, \"case\": {\"id\": \"x\", \"type\": \"merge-patch\"}}\n",
            "{\"cmd\": \"run\", \"seq\": 4, \"case\": {\"type\": \"json-patch\", \"original\": []}}\n",
        ));
        assert_eq!(lines, vec![
            r#"{"error":{"class":"unclassified","message":"panic: the library broke on \"x\""},"seq":3}"#,
            r#"{"result":{"document":[]},"seq":4}"#,
        ]);
    }

    #[test]
    fn garbage_unknown_commands_and_undeclared_types_are_answered() {
        let lines = conversation(concat!(
            "not json\n",
            "{\"cmd\": \"dance\", \"seq\": 5}\n",
            "{\"cmd\": \"run\", \"seq\": 6, \"case\": {\"type\": \"strategic\"}}\n",
            "{\"cmd\": \"run\", \"seq\": 7, \"case\": [1]}\n",
        ));
        assert_eq!(lines, vec![
            r#"{"error":{"class":"unclassified","message":"unreadable request: expected ident at line 1 column 2"},"seq":null}"#,
            r#"{"error":{"class":"unclassified","message":"unknown command \"dance\""},"seq":5}"#,
            r#"{"seq":6,"skipped":"rust-echo does not run \"strategic\" cases"}"#,
            r#"{"error":{"class":"unclassified","message":"the request's case is not an object: [1]"},"seq":7}"#,
        ]);
    }
}
