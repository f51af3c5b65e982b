//! The simulator's errors: every one is one line naming the field that is wrong.
//!
//! - [`FieldError`]: a field (a path such as `flows[1].overrides.k_up`, or a sub-path
//!   such as `.k_up` that a caller puts under its own prefix) and what is wrong with it.
//! - [`ScenarioError`]: a [`FieldError`] in a named scenario file
//!   (`scenario.toml: flows[1].start: must be >= 0 s, got -3 s`).
//! - [`SimError`]: why a run could not be made (a bad scenario, a flow or coupling
//!   manager that cannot be built from a validated scenario, a file that cannot be read).

use std::fmt;

/// A field and what is wrong with it: `{field}: {message}` on one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldError {
    /// The field's path, e.g. `flows[0].overrides.k_up`, or a sub-path starting with
    /// `.` (e.g. `.k_up`) while the caller has not yet put it under its own field.
    pub field: String,
    pub message: String,
}

impl FieldError {
    pub fn new(field: impl Into<String>, message: impl Into<String>) -> Self {
        Self {
            field: field.into(),
            message: message.into(),
        }
    }

    /// The error with its field under `prefix`: `.k_up` under `flows[0].overrides`
    /// is `flows[0].overrides.k_up`; an empty field becomes `prefix` itself.
    pub fn under(self, prefix: &str) -> Self {
        Self {
            field: format!("{prefix}{}", self.field),
            message: self.message,
        }
    }

    /// The error in scenario `file`.
    pub fn in_file(self, file: &str) -> ScenarioError {
        ScenarioError {
            file: file.to_string(),
            field: self.field,
            message: self.message,
        }
    }
}

impl fmt::Display for FieldError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.field, self.message)
    }
}

impl std::error::Error for FieldError {}

/// A bad scenario: `{file}: {field}: {message}` on one line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub field: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}: {}", self.file, self.field, self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// Why a run could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SimError {
    /// The scenario is invalid (one line: file, field, what was expected).
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    /// A flow (`flows[i]. ...`) or the coupling manager (`coupling. ...`) cannot be
    /// built from the scenario: a value the scenario's own checks let through, found
    /// when the run is made (or a scenario built in code and never validated). The
    /// caller names the file: `{file}: {field}: {message}`.
    #[error("{0}")]
    Build(#[from] FieldError),
    #[error("{path}: {message}")]
    Io { path: String, message: String },
}

/// The field name in serde's "missing field `x`" message.
pub(crate) fn missing_field(message: &str) -> Option<&str> {
    let rest = message.trim().strip_prefix("missing field `")?;
    rest.split('`').next()
}

/// `parent.child`, or `child` at the top level.
pub(crate) fn join_path(parent: &str, child: &str) -> String {
    if parent == "." || parent.is_empty() {
        child.to_string()
    } else {
        format!("{parent}.{child}")
    }
}
