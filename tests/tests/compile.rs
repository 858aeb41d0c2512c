//! Compile tests: every shape the macros accept compiles, and every mistake a user can make
//! is one clear error at the tokens that are wrong (the `.stderr` files are the contract).

#[test]
fn macros_accept_every_supported_shape() {
    let cases = trybuild::TestCases::new();
    cases.pass("ui/pass/*.rs");
}

#[test]
fn mistakes_are_compile_errors_that_point_at_them() {
    let cases = trybuild::TestCases::new();
    cases.compile_fail("ui/fail/*.rs");
}
