//! The second pass: every rule the models must follow, each broken one reported at the tokens
//! that break it, all of them collected before anything is generated.

pub mod form;
pub mod function;
pub mod handlers;
pub mod rounds;
pub mod view;
