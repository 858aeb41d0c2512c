//! Why a handler's parameter could not be produced.

use super::Error;
use crate::model::InputRequiredResult;

/// Why a parameter of a tool, prompt or resource function could not be produced: what an
/// extractor returns instead of its value. `?` on a framework [`Error`] makes one.
#[derive(Debug)]
#[non_exhaustive]
pub enum Rejection {
    /// The arguments are wrong: a tool answers with a tool error the model can read and
    /// correct; a prompt or resource with -32602.
    Argument(String),
    /// A protocol error.
    Protocol(Error),
    /// A retry without the answers its round needs: ask the same questions again.
    Reask {
        /// The questions, with the same state.
        result: Box<InputRequiredResult>,
        /// The state's nonce when it is single use (a used state is refused, not re-asked).
        nonce: Option<[u8; 16]>,
    },
}

impl From<Error> for Rejection {
    fn from(error: Error) -> Self {
        Rejection::Protocol(error)
    }
}
