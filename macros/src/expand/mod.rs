//! The third pass: the code, for models that passed their checks, or stand-ins that keep the
//! user's program compiling around a mistake so that it is reported once.

pub mod form;
pub mod handler;
pub mod prompt;
pub mod resource;
pub mod rounds;
pub mod tool;
pub mod view;
