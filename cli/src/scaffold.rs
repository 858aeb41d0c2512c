//! `mcp-rounds new NAME`: a server crate that builds and passes its tests at once, written
//! from the templates beside this crate's sources.

use std::path::{Path, PathBuf};

use crate::failure::{Failure, usage};
use crate::options::NewArgs;

/// Each file of the new crate, and its template.
const FILES: [(&str, &str); 6] = [
    ("Cargo.toml", include_str!("../template/Cargo.toml.in")),
    ("src/lib.rs", include_str!("../template/lib.rs.in")),
    ("src/main.rs", include_str!("../template/main.rs.in")),
    ("tests/server.rs", include_str!("../template/tests.rs.in")),
    ("README.md", include_str!("../template/README.md.in")),
    (".gitignore", include_str!("../template/gitignore.in")),
];

/// Writes the crate into `./NAME`, which must not exist yet.
pub fn write(args: &NewArgs) -> Result<(), Failure> {
    check_name(&args.name)?;
    let source = match &args.path {
        None => format!("version = \"{}\"", env!("CARGO_PKG_VERSION")),
        Some(checkout) => format!("path = {}", toml_string(&runtime_of(checkout)?)),
    };
    let directory = PathBuf::from(&args.name);
    if directory.exists() {
        return Err(usage(format!("`{}` already exists: choose another name, or remove it", directory.display())));
    }
    let crate_name = args.name.replace('-', "_");
    for (path, template) in FILES {
        let text =
            template.replace("{{name}}", &args.name).replace("{{crate}}", &crate_name).replace("{{source}}", &source);
        let path = directory.join(path);
        let written = path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&path, text));
        written.map_err(|e| Failure::Io(format!("cannot write {}: {e}", path.display())))?;
    }
    println!("Created {} (a tool, a resource template, a prompt and a tool that asks in a form).", directory.display());
    println!(
        "Next:\n  cd {}\n  cargo test\n  cargo build && mcp-rounds tools list -- target/debug/{}",
        args.name, args.name
    );
    Ok(())
}

/// A name cargo accepts for a package and its binary.
fn check_name(name: &str) -> Result<(), Failure> {
    let starts_well = name.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    let all_fit = name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if !starts_well || !all_fit || name.len() > 64 {
        return Err(usage(format!(
            "`{name}` cannot name a crate: use letters, digits, `-` and `_`, starting with a letter"
        )));
    }
    Ok(())
}

/// The runtime crate in a checkout of mcp-rounds, as an absolute path.
fn runtime_of(checkout: &Path) -> Result<String, Failure> {
    let runtime = checkout.join("runtime");
    let manifest = std::fs::read_to_string(runtime.join("Cargo.toml")).unwrap_or_default();
    if !manifest.contains("name = \"mcp-rounds\"") {
        return Err(usage(format!(
            "--path {}: not a checkout of mcp-rounds (no runtime/Cargo.toml)",
            checkout.display()
        )));
    }
    let absolute = std::fs::canonicalize(&runtime).map_err(|e| usage(format!("--path {}: {e}", checkout.display())))?;
    absolute.to_str().map(str::to_owned).ok_or_else(|| usage(format!("--path {}: not UTF-8", checkout.display())))
}

/// A TOML basic string.
fn toml_string(text: &str) -> String {
    let escaped = text.replace('\\', "\\\\").replace('"', "\\\"");
    format!("\"{escaped}\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_that_cannot_be_crates_are_refused() {
        for bad in ["", "1st", "my server", "a/b", "né"] {
            assert!(check_name(bad).is_err(), "{bad:?}");
        }
        for good in ["demo", "my-server", "my_server2"] {
            assert!(check_name(good).is_ok(), "{good:?}");
        }
    }

    #[test]
    fn every_placeholder_is_filled() {
        for (path, template) in FILES {
            let text = template.replace("{{name}}", "n").replace("{{crate}}", "n").replace("{{source}}", "s");
            assert!(!text.contains("{{"), "{path} keeps a placeholder");
        }
    }
}
