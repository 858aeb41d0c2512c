//! The first pass: what the user wrote, read into small models. Reading reports only what
//! cannot be read; everything else is left for the checks.

pub mod args;
pub mod attrs;
pub mod form;
pub mod function;
pub mod rounds;
pub mod view;
