//! Typed CDP commands for the code outside the engine (the recorder and the replayer): each
//! command is a struct of its parameters, serialised to exactly the JSON the protocol reads
//! (absent options are left out), with its answer decoded from only the fields read
//! ([`Command::Answer`]). Sent with [`CdpSession::run`](crate::session::CdpSession::run) or
//! [`CdpSession::send`](crate::session::CdpSession::send). Only the engine names protocol
//! methods: the `cdp` test `methods_are_named_only_in_the_engine` checks every other crate.

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A protocol command: its parameters (this value, serialised), its method and its answer.
pub trait Command: Serialize {
    /// The protocol method (`Runtime.evaluate`).
    const METHOD: &'static str;
    /// What the browser answers.
    type Answer: DeserializeOwned;
}

/// An answer with nothing read from it.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
pub struct Done {}

/// A JavaScript value or a handle on one (`Runtime.RemoteObject`), the fields read.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RemoteObject {
    /// The value's JSON, when returned by value (absent for `undefined`).
    #[serde(default)]
    pub value: Option<Value>,
    /// A handle on the object, when returned by reference (absent for primitives).
    #[serde(default)]
    pub object_id: Option<String>,
    /// For people: an exception's message and stack.
    #[serde(default)]
    pub description: Option<String>,
}

/// Why an evaluation threw (`Runtime.ExceptionDetails`), the fields read.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
pub struct ExceptionDetails {
    /// A short text (`Uncaught`).
    #[serde(default)]
    pub text: String,
    /// The thrown value.
    #[serde(default)]
    pub exception: Option<RemoteObject>,
}

impl ExceptionDetails {
    /// What the script threw, for people: the exception's description, else the text.
    pub fn describe(&self) -> Option<&str> {
        self.exception
            .as_ref()
            .and_then(|e| e.description.as_deref())
            .or((!self.text.is_empty()).then_some(self.text.as_str()))
    }
}

/// What an evaluation answers: its result, or what it threw.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Evaluated {
    /// The value (or a handle on it).
    pub result: RemoteObject,
    /// Present when the script threw.
    #[serde(default)]
    pub exception_details: Option<ExceptionDetails>,
}

/// The `Runtime` domain.
pub mod runtime {
    use super::*;

    /// `Runtime.enable`: execution context events.
    #[derive(Debug, Clone, Default, Serialize)]
    pub struct Enable {}

    impl Command for Enable {
        const METHOD: &'static str = "Runtime.enable";
        type Answer = Done;
    }

    /// `Runtime.addBinding`: a function `name` in the worlds named `execution_context_name`
    /// whose calls arrive as `Runtime.bindingCalled` events.
    #[derive(Debug, Clone, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct AddBinding {
        /// The function's name on `window`.
        pub name: String,
        /// Only in the isolated worlds of this name.
        pub execution_context_name: String,
    }

    impl Command for AddBinding {
        const METHOD: &'static str = "Runtime.addBinding";
        type Answer = Done;
    }

    /// `Runtime.evaluate`: an expression in an execution context.
    #[derive(Debug, Clone, Default, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Evaluate {
        /// The JavaScript expression.
        pub expression: String,
        /// The execution context (default: the page's main world of the top frame).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub context_id: Option<i64>,
        /// The group the handles it returns belong to (released together).
        #[serde(skip_serializing_if = "Option::is_none")]
        pub object_group: Option<String>,
        /// Wait for the promise it returns.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub await_promise: Option<bool>,
        /// Return the value as JSON rather than a handle.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub return_by_value: Option<bool>,
    }

    impl Evaluate {
        /// `expression` in the default context, every option left out.
        pub fn new(expression: impl Into<String>) -> Self {
            Self {
                expression: expression.into(),
                ..Self::default()
            }
        }

        /// In the execution context `id`.
        pub fn in_context(mut self, id: i64) -> Self {
            self.context_id = Some(id);
            self
        }
    }

    impl Command for Evaluate {
        const METHOD: &'static str = "Runtime.evaluate";
        type Answer = Evaluated;
    }

    /// `Runtime.callFunctionOn`: a function called with an object as `this`.
    #[derive(Debug, Clone, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct CallFunctionOn {
        /// The object (`this`).
        pub object_id: String,
        /// The function's source.
        pub function_declaration: String,
        /// The group the handle it returns belongs to.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub object_group: Option<String>,
    }

    impl Command for CallFunctionOn {
        const METHOD: &'static str = "Runtime.callFunctionOn";
        type Answer = Evaluated;
    }

    /// `Runtime.getProperties`: an object's properties.
    #[derive(Debug, Clone, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct GetProperties {
        /// The object.
        pub object_id: String,
        /// Only its own properties, not its prototype chain's.
        pub own_properties: bool,
    }

    /// One property (`Runtime.PropertyDescriptor`), the fields read.
    #[derive(Debug, Clone, PartialEq, Deserialize)]
    pub struct Property {
        /// Its name (an array's index as text).
        pub name: String,
        /// Its value (absent for an accessor).
        #[serde(default)]
        pub value: Option<RemoteObject>,
    }

    /// What [`GetProperties`] answers.
    #[derive(Debug, Clone, PartialEq, Deserialize)]
    pub struct Properties {
        /// The properties.
        pub result: Vec<Property>,
    }

    impl Command for GetProperties {
        const METHOD: &'static str = "Runtime.getProperties";
        type Answer = Properties;
    }

    /// `Runtime.releaseObjectGroup`: every handle of a group released.
    #[derive(Debug, Clone, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ReleaseObjectGroup {
        /// The group.
        pub object_group: String,
    }

    impl Command for ReleaseObjectGroup {
        const METHOD: &'static str = "Runtime.releaseObjectGroup";
        type Answer = Done;
    }
}

/// The `Page` domain.
pub mod page {
    use super::*;

    /// `Page.enable`: page events.
    #[derive(Debug, Clone, Default, Serialize)]
    pub struct Enable {}

    impl Command for Enable {
        const METHOD: &'static str = "Page.enable";
        type Answer = Done;
    }

    /// `Page.setInterceptFileChooserDialog`: file choosers reported
    /// (`Page.fileChooserOpened`) instead of shown.
    #[derive(Debug, Clone, Serialize)]
    pub struct SetInterceptFileChooserDialog {
        /// On or off.
        pub enabled: bool,
    }

    impl Command for SetInterceptFileChooserDialog {
        const METHOD: &'static str = "Page.setInterceptFileChooserDialog";
        type Answer = Done;
    }

    /// `Page.addScriptToEvaluateOnNewDocument`: a script run in every new document.
    #[derive(Debug, Clone, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct AddScriptToEvaluateOnNewDocument {
        /// The script.
        pub source: String,
        /// In an isolated world of this name (created in each document).
        pub world_name: String,
        /// Also in the documents already there.
        pub run_immediately: bool,
    }

    /// What [`AddScriptToEvaluateOnNewDocument`] answers.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    pub struct ScriptAdded {
        /// The script's identifier (to remove it).
        pub identifier: String,
    }

    impl Command for AddScriptToEvaluateOnNewDocument {
        const METHOD: &'static str = "Page.addScriptToEvaluateOnNewDocument";
        type Answer = ScriptAdded;
    }
}

/// The `DOM` domain.
pub mod dom {
    use super::*;

    /// A DOM node, by the backend's id or by a handle on it.
    #[derive(Debug, Clone, PartialEq, Eq, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub enum NodeRef {
        /// `backendNodeId` (stable across worlds).
        BackendNodeId(i64),
        /// `objectId` (a handle in one world).
        ObjectId(String),
    }

    /// `DOM.describeNode`: what a handle points at.
    #[derive(Debug, Clone, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct DescribeNode {
        /// The handle.
        pub object_id: String,
    }

    /// A node (`DOM.Node`), the fields read.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    pub struct Node {
        /// The backend's id of the node.
        pub backend_node_id: i64,
    }

    /// What [`DescribeNode`] answers.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    pub struct Described {
        /// The node.
        pub node: Node,
    }

    impl Command for DescribeNode {
        const METHOD: &'static str = "DOM.describeNode";
        type Answer = Described;
    }

    /// `DOM.resolveNode`: a handle on a node in the page's main world.
    #[derive(Debug, Clone, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct ResolveNode {
        /// The node.
        pub backend_node_id: i64,
        /// The group the handle belongs to.
        #[serde(skip_serializing_if = "Option::is_none")]
        pub object_group: Option<String>,
    }

    /// What [`ResolveNode`] answers.
    #[derive(Debug, Clone, PartialEq, Deserialize)]
    pub struct Resolved {
        /// The handle.
        pub object: RemoteObject,
    }

    impl Command for ResolveNode {
        const METHOD: &'static str = "DOM.resolveNode";
        type Answer = Resolved;
    }

    /// `DOM.setFileInputFiles`: a file input's files set (or a file chooser answered, through
    /// the input it opened for).
    #[derive(Debug, Clone, Serialize)]
    pub struct SetFileInputFiles {
        /// The files' paths.
        pub files: Vec<String>,
        /// The file input.
        #[serde(flatten)]
        pub node: NodeRef,
    }

    impl Command for SetFileInputFiles {
        const METHOD: &'static str = "DOM.setFileInputFiles";
        type Answer = Done;
    }
}

/// The `DOMDebugger` domain.
pub mod dom_debugger {
    use super::*;

    /// `DOMDebugger.getEventListeners`: the listeners on an object, in the world it belongs to.
    #[derive(Debug, Clone, Serialize)]
    #[serde(rename_all = "camelCase")]
    pub struct GetEventListeners {
        /// The object (a node, a document, a window).
        pub object_id: String,
    }

    /// One listener (`DOMDebugger.EventListener`), the fields read.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    pub struct EventListener {
        /// The event type (`keydown`).
        #[serde(rename = "type")]
        pub event: String,
    }

    /// What [`GetEventListeners`] answers.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    pub struct Listeners {
        /// The listeners.
        pub listeners: Vec<EventListener>,
    }

    impl Command for GetEventListeners {
        const METHOD: &'static str = "DOMDebugger.getEventListeners";
        type Answer = Listeners;
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn params(command: &impl Command) -> Value {
        serde_json::to_value(command).expect("serialises")
    }

    #[test]
    fn parameters_are_the_json_the_protocol_reads() {
        assert_eq!(params(&runtime::Enable {}), json!({}));
        assert_eq!(
            params(&runtime::Evaluate::new("0")),
            json!({ "expression": "0" })
        );
        assert_eq!(
            params(&runtime::Evaluate {
                await_promise: Some(true),
                return_by_value: Some(true),
                object_group: Some("g".into()),
                ..runtime::Evaluate::new("x").in_context(7)
            }),
            json!({ "expression": "x", "contextId": 7, "objectGroup": "g",
                "awaitPromise": true, "returnByValue": true })
        );
        assert_eq!(
            params(&runtime::AddBinding {
                name: "b".into(),
                execution_context_name: "w".into()
            }),
            json!({ "name": "b", "executionContextName": "w" })
        );
        assert_eq!(
            params(&page::AddScriptToEvaluateOnNewDocument {
                source: "s".into(),
                world_name: "w".into(),
                run_immediately: true
            }),
            json!({ "source": "s", "worldName": "w", "runImmediately": true })
        );
        assert_eq!(
            params(&dom::SetFileInputFiles {
                files: vec!["/a".into()],
                node: dom::NodeRef::BackendNodeId(5)
            }),
            json!({ "files": ["/a"], "backendNodeId": 5 })
        );
        assert_eq!(
            params(&dom::SetFileInputFiles {
                files: vec![],
                node: dom::NodeRef::ObjectId("o".into())
            }),
            json!({ "files": [], "objectId": "o" })
        );
        assert_eq!(
            params(&dom::ResolveNode {
                backend_node_id: 3,
                object_group: None
            }),
            json!({ "backendNodeId": 3 })
        );
    }

    #[test]
    fn answers_are_read_from_the_fields_chromium_sends() {
        // As Chromium 156 answered, extra fields and all.
        let thrown: Evaluated = serde_json::from_value(json!({
            "result": { "type": "object", "subtype": "error", "className": "TypeError",
                "description": "TypeError: x is not a function", "objectId": "1.2.3" },
            "exceptionDetails": { "exceptionId": 1, "text": "Uncaught", "lineNumber": 0,
                "columnNumber": 2, "exception": { "type": "object",
                "description": "TypeError: x is not a function" } }
        }))
        .unwrap();
        assert_eq!(
            thrown.exception_details.unwrap().describe(),
            Some("TypeError: x is not a function")
        );
        let value: Evaluated =
            serde_json::from_value(json!({ "result": { "type": "number", "value": 2,
                "description": "2" } }))
            .unwrap();
        assert_eq!(value.result.value, Some(json!(2)));
        let undefined: Evaluated =
            serde_json::from_value(json!({ "result": { "type": "undefined" } })).unwrap();
        assert_eq!(undefined.result.value, None);
        let listeners: dom_debugger::Listeners = serde_json::from_value(json!({
            "listeners": [{ "type": "keydown", "useCapture": false, "passive": false,
                "once": false, "scriptId": "4", "lineNumber": 1, "columnNumber": 9 }]
        }))
        .unwrap();
        assert_eq!(listeners.listeners[0].event, "keydown");
        let described: dom::Described = serde_json::from_value(json!({
            "node": { "nodeId": 0, "backendNodeId": 12, "nodeType": 1, "nodeName": "INPUT",
                "localName": "input", "nodeValue": "" }
        }))
        .unwrap();
        assert_eq!(described.node.backend_node_id, 12);
        let _: Done = serde_json::from_value(json!({})).unwrap();
    }
}
