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

/// A handler never listed in `handlers![...]` fails the build. Checked with cargo itself, as a
/// user builds: trybuild allows `dead_code` in every case, which is the lint that says so.
#[test]
fn a_handler_left_out_of_handlers_fails_the_build() {
    use std::process::Command;

    let workspace = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let target = std::env::var_os("CARGO_TARGET_DIR").map_or_else(|| workspace.join("target"), Into::into);
    let dir = std::path::Path::new(&target).join("tests").join("forgotten-handler");
    std::fs::create_dir_all(dir.join("src")).unwrap();
    let manifest = format!(
        "[package]\nname = \"forgotten-handler\"\nversion = \"0.0.0\"\nedition = \"2024\"\n\n\
         [dependencies]\nmcp-rounds = {{ path = {:?}, default-features = false }}\n\n[workspace]\n",
        workspace.join("runtime")
    );
    std::fs::write(dir.join("Cargo.toml"), manifest).unwrap();
    std::fs::copy(workspace.join("Cargo.lock"), dir.join("Cargo.lock")).unwrap();
    // The compile-fail case itself, built as a user builds it.
    std::fs::write(dir.join("src/main.rs"), include_str!("../ui/fail/handler_not_listed.rs")).unwrap();
    let output = Command::new(env!("CARGO"))
        .args(["check", "--quiet", "--message-format", "short", "--manifest-path"])
        .arg(dir.join("Cargo.toml"))
        .env("CARGO_TARGET_DIR", dir.join("target"))
        .env_remove("RUSTFLAGS")
        .output()
        .expect("run cargo check");
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!output.status.success(), "a forgotten handler compiled:\n{stderr}");
    let errors: Vec<&str> = stderr.lines().filter(|line| line.contains("error")).collect();
    assert_eq!(errors.len(), 4, "one error for each forgotten handler, then cargo's summary:\n{stderr}");
    // In the order rustc reports them, which is not the file's.
    for (at, name) in
        [("src/main.rs:15:4", "`farewell`"), ("src/main.rs:24:19", "`purge`"), ("src/main.rs:38:8", "`Board`")]
    {
        assert!(errors.iter().any(|e| e.contains(at) && e.contains(name)), "{name} at {at}:\n{stderr}");
    }
    assert!(!stderr.contains("warning"), "{stderr}");
}
