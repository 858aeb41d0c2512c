//! Reading skills directories, hostile ones included.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::json;

use super::*;

/// A fresh directory for one test, removed when dropped.
struct Dir(PathBuf);

impl Dir {
    fn new(test: &str) -> Dir {
        let path = std::env::temp_dir().join(format!("mcp-rounds-skills-{test}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&path);
        fs::create_dir_all(&path).unwrap();
        Dir(path)
    }

    fn write(&self, rel: &str, text: &str) -> &Dir {
        let path = self.0.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, text).unwrap();
        self
    }

    fn skill(&self, dir: &str, name: &str) -> &Dir {
        self.write(
            &format!("{dir}/SKILL.md"),
            &format!("---\nname: {name}\ndescription: Does {name}.\n---\n# {name}\n"),
        )
    }

    fn load(&self) -> Catalog {
        Catalog::load(&self.0).unwrap()
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn problem_paths(catalog: &Catalog) -> Vec<&str> {
    catalog.problems().iter().map(|p| p.path.as_str()).collect()
}

#[test]
fn a_skill_lists_every_file_with_digest_and_size_skill_md_first() {
    let dir = Dir::new("entry");
    dir.skill("pdf-processing", "pdf-processing").write("pdf-processing/references/abc.txt", "abc");
    let catalog = dir.load();
    assert!(catalog.problems().is_empty(), "{:?}", catalog.problems());
    let skill = catalog.get("skill://pdf-processing/SKILL.md").unwrap();
    let entry = serde_json::to_value(skill.entry()).unwrap();
    assert_eq!(entry["uri"], "skill://pdf-processing/SKILL.md");
    assert_eq!(entry["frontmatter"], json!({"name": "pdf-processing", "description": "Does pdf-processing."}));
    let resources = entry["resources"].as_array().unwrap();
    assert_eq!(resources[0]["uri"], "skill://pdf-processing/SKILL.md");
    assert_eq!(resources[0]["size"], fs::metadata(dir.0.join("pdf-processing/SKILL.md")).unwrap().len());
    // SHA-256 of "abc" (FIPS 180-2, appendix B.1).
    assert_eq!(
        resources[1],
        json!({
            "uri": "skill://pdf-processing/references/abc.txt",
            "digest": "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad",
            "size": 3,
        })
    );
    let (owner, file) = catalog.file("skill://pdf-processing/references/abc.txt").unwrap();
    assert_eq!((owner.name(), &file.bytes()[..]), ("pdf-processing", &b"abc"[..]));
    assert!(catalog.file("skill://pdf-processing/references/missing.txt").is_none());
    assert!(catalog.get("skill://pdf-processing").is_none());
}

#[test]
fn nested_and_prefixed_skills_are_each_listed_and_the_outer_one_lists_the_inner_files() {
    let dir = Dir::new("nested");
    dir.skill("acme/billing/refunds", "refunds").skill("outer", "outer").skill("outer/inner", "inner");
    let catalog = dir.load();
    let paths: Vec<&str> = catalog.skills().map(Skill::path).collect();
    assert_eq!(paths, ["acme/billing/refunds", "outer", "outer/inner"]);
    let outer = catalog.get("skill://outer/SKILL.md").unwrap();
    let files: Vec<&str> = outer.files().iter().map(SkillFile::path).collect();
    assert_eq!(files, ["SKILL.md", "inner/SKILL.md"]);
    // The file belongs to the innermost skill.
    let (owner, _) = catalog.file("skill://outer/inner/SKILL.md").unwrap();
    assert_eq!(owner.name(), "inner");
}

#[test]
fn a_malformed_skill_is_left_out_with_its_reason_and_the_others_are_served() {
    let dir = Dir::new("malformed");
    dir.skill("good", "good")
        .write("no-frontmatter/SKILL.md", "# Just a title\n")
        .write("no-name/SKILL.md", "---\ndescription: x\n---\n")
        .write("no-description/SKILL.md", "---\nname: no-description\n---\n")
        .skill("wrong-folder", "another-name")
        .skill("Bad--Name", "Bad--Name")
        .write("SKILL.md", "---\nname: root\ndescription: x\n---\n");
    let catalog = dir.load();
    assert_eq!(catalog.skills().map(Skill::name).collect::<Vec<_>>(), ["good"]);
    let reasons: BTreeMap<&str, &str> =
        catalog.problems().iter().map(|p| (p.path.as_str(), p.reason.as_str())).collect();
    assert!(reasons["no-frontmatter/SKILL.md"].contains("must begin with a `---` line"));
    assert!(reasons["no-name/SKILL.md"].contains("needs a `name`"));
    assert!(reasons["no-description/SKILL.md"].contains("needs a `description`"));
    assert!(reasons["wrong-folder/SKILL.md"].contains("must be the skill's folder name, `wrong-folder`"));
    assert!(reasons["Bad--Name/SKILL.md"].contains("Agent Skills rule"));
    assert!(reasons["SKILL.md"].contains("put its SKILL.md in a folder"));
}

#[cfg(unix)]
#[test]
fn links_out_of_the_directory_links_to_directories_and_special_files_are_refused() {
    use std::os::unix::fs::symlink;

    let outside = Dir::new("outside");
    outside.write("secret.txt", "top secret");
    let dir = Dir::new("links");
    dir.skill("linked", "linked").write("linked/real.txt", "real");
    symlink(outside.0.join("secret.txt"), dir.0.join("linked/escape.txt")).unwrap();
    symlink(dir.0.join("linked/real.txt"), dir.0.join("linked/alias.txt")).unwrap();
    symlink(outside.0.clone(), dir.0.join("linked/outside-dir")).unwrap();
    symlink(dir.0.join("linked"), dir.0.join("linked/loop")).unwrap();
    symlink(dir.0.join("nowhere"), dir.0.join("linked/dangling")).unwrap();
    let _socket = std::os::unix::net::UnixListener::bind(dir.0.join("linked/socket")).unwrap();
    let catalog = dir.load();
    let skill = catalog.get("skill://linked/SKILL.md").unwrap();
    let files: Vec<&str> = skill.files().iter().map(SkillFile::path).collect();
    assert_eq!(files, ["SKILL.md", "alias.txt", "real.txt"]);
    assert_eq!(&catalog.file("skill://linked/alias.txt").unwrap().1.bytes()[..], b"real");
    let reasons: BTreeMap<&str, &str> =
        catalog.problems().iter().map(|p| (p.path.as_str(), p.reason.as_str())).collect();
    assert!(reasons["linked/escape.txt"].contains("leads out of the skills directory"));
    assert!(reasons["linked/outside-dir"].contains("leads out of the skills directory"));
    assert!(reasons["linked/loop"].contains("link to a directory"));
    assert!(reasons["linked/dangling"].contains("link to nothing"));
    assert!(reasons["linked/socket"].contains("not a regular file"));
    assert!(serde_json::to_string(&skill.entry()).unwrap().find("top secret").is_none());
}

#[test]
fn names_that_need_escaping_are_refused_and_hidden_files_are_passed_over() {
    let dir = Dir::new("names");
    dir.skill("plain", "plain").write("plain/with space.md", "x").write("plain/.notes.swp", "x");
    let catalog = dir.load();
    let files: Vec<&str> = catalog.skills().next().unwrap().files().iter().map(SkillFile::path).collect();
    assert_eq!(files, ["SKILL.md"]);
    assert_eq!(problem_paths(&catalog), ["plain/with space.md"]);
}

#[test]
fn a_skill_over_the_limits_is_left_out() {
    let dir = Dir::new("limits");
    dir.skill("huge", "huge").skill("many", "many").skill("fine", "fine");
    // A sparse file: its length counts, no disk is used.
    fs::File::create(dir.0.join("huge/blob.bin")).unwrap().set_len(MAX_BYTES_PER_SKILL).unwrap();
    for i in 0..MAX_FILES_PER_SKILL {
        fs::write(dir.0.join(format!("many/{i}.txt")), "x").unwrap();
    }
    let catalog = dir.load();
    assert_eq!(catalog.skills().map(Skill::name).collect::<Vec<_>>(), ["fine"]);
    let reasons: BTreeMap<&str, &str> =
        catalog.problems().iter().map(|p| (p.path.as_str(), p.reason.as_str())).collect();
    assert!(reasons["huge/SKILL.md"].contains(&format!("at most {MAX_BYTES_PER_SKILL} are served")));
    assert!(reasons["many/SKILL.md"].contains(&format!("has {} files", MAX_FILES_PER_SKILL + 1)));
}

#[test]
fn a_missing_directory_is_an_error() {
    assert!(Catalog::load(Path::new("/nonexistent/mcp-rounds-skills")).is_err());
}
