//! What keeps a server description from being served, found when it is built.

/// A server description that cannot be served.
#[derive(thiserror::Error, PartialEq, Eq)]
#[non_exhaustive]
pub enum BuildError {
    /// Two tools share a name.
    #[error("two tools are named {0:?}; tool names must be unique")]
    DuplicateTool(String),
    /// A tool name breaks the grammar.
    #[error("tool name {0:?} is invalid: use 1 to 128 of A-Z a-z 0-9 _ . -")]
    InvalidToolName(String),
    /// A tool's input schema does not describe an object.
    #[error("the input schema of tool {0:?} must have \"type\": \"object\" at its root")]
    InputSchemaNotObject(String),
    /// A `#[tool]` function's parameters cannot make a descriptor.
    #[error("tool {tool:?}: {problem}")]
    InvalidTool {
        /// The function.
        tool: String,
        /// What is wrong.
        problem: String,
    },
    /// A tool's input schema declares an `x-mcp-header` that SEP-2243 does not allow; clients
    /// would drop the whole tool.
    #[error("tool {tool:?} has an invalid x-mcp-header declaration: {problem}")]
    InvalidParamHeader {
        /// The tool.
        tool: String,
        /// What is wrong.
        problem: String,
    },
    /// Two prompts share a name.
    #[error("two prompts are named {0:?}; prompt names must be unique")]
    DuplicatePrompt(String),
    /// A `#[prompt]` function cannot make a descriptor.
    #[error("prompt {prompt:?}: {problem}")]
    InvalidPrompt {
        /// The function.
        prompt: String,
        /// What is wrong.
        problem: String,
    },
    /// Two resources share a URI or URI template.
    #[error("two resources have the URI {0:?}; resource URIs and templates must be unique")]
    DuplicateResource(String),
    /// The skills directory cannot be read.
    #[cfg(feature = "skills")]
    #[error("the skills directory {path} cannot be read: {problem}")]
    SkillsDirectory {
        /// The directory.
        path: String,
        /// What is wrong.
        problem: String,
    },
    /// A `#[resource]` function cannot make a descriptor.
    #[error("resource {resource:?}: {problem}")]
    InvalidResource {
        /// The function.
        resource: String,
        /// What is wrong.
        problem: String,
    },
    /// An MCP Apps view cannot be served as declared.
    #[error("view {view:?}: {problem}")]
    InvalidView {
        /// Its URI (or name, when the URI is what is missing).
        view: String,
        /// What is wrong.
        problem: String,
    },
    /// A tool links to a view the server does not have.
    #[error(
        "tool {tool:?} links to the view {view:?}, which is not registered: add it with .view(...) or to handlers![...]"
    )]
    UnknownView {
        /// The tool.
        tool: String,
        /// The URI it links to.
        view: String,
    },
    /// A tool or prompt has rounds but no keys sign their state.
    #[error(
        "{0:?} has rounds, whose requestState must be signed: configure .state_keys(...) \
         (or KeyRing::development() for local work)"
    )]
    NoStateKeys(String),
    /// A handler asks for shared state that was never registered.
    #[error("{handler:?} needs State<{state}>, but no such state was registered; add .state(...) to the builder")]
    MissingState {
        /// The tool, resource or prompt.
        handler: String,
        /// The state's type.
        state: String,
    },
}

/// Reads as `Display` does, so `.expect(...)` and `?` in `main` print what to change rather
/// than the enum's variant.
impl std::fmt::Debug for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        std::fmt::Display::fmt(self, f)
    }
}
