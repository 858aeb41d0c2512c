//! The skills extension (`io.modelcontextprotocol/skills`, SEP-2640): `skills/list`,
//! `skills/get` and `resources/directory/read`.

use serde::{Deserialize, Serialize};

use super::{CacheScope, Complete, JsonObject, Resource, ResultMeta};

/// The extension's identifier, the key of its settings in `capabilities.extensions`.
pub const SKILLS_EXTENSION: &str = "io.modelcontextprotocol/skills";

/// The `mimeType` of a directory in `resources/directory/read`.
pub const DIRECTORY_MIME_TYPE: &str = "inode/directory";

/// One skill as `skills/list` and `skills/get` describe it.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillEntry {
    /// The URI of its `SKILL.md`.
    pub uri: String,
    /// Its `SKILL.md` frontmatter, every field as written.
    pub frontmatter: JsonObject,
    /// Its files with their digests and sizes, or `"dynamic"`.
    pub resources: SkillResources,
}

/// The files of a skill: every one of them, or `"dynamic"` when their content is generated
/// and no stable digest can be published.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SkillResources {
    /// Every file of the skill, its `SKILL.md` included, each once.
    Files(Vec<SkillResource>),
    /// Generated content (the wire's `"dynamic"`).
    Dynamic(Dynamic),
}

impl Default for SkillResources {
    fn default() -> Self {
        SkillResources::Files(Vec::new())
    }
}

super::literal!(
    /// The `"dynamic"` of [`SkillResources::Dynamic`].
    Dynamic = "dynamic"
);

/// One file of a skill.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillResource {
    /// Its resource URI.
    pub uri: String,
    /// `sha256:` and the lowercase hex SHA-256 of its bytes.
    pub digest: String,
    /// Its length in bytes.
    pub size: u64,
}

/// The result of `skills/list`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ListSkillsResult {
    /// Always `"complete"`.
    #[serde(default)]
    pub result_type: Complete,
    /// This page of skills.
    pub skills: Vec<SkillEntry>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Milliseconds the result stays fresh.
    #[serde(default)]
    pub ttl_ms: u64,
    /// Who may reuse the result.
    #[serde(default)]
    pub cache_scope: CacheScope,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "ResultMeta::is_empty")]
    pub meta: ResultMeta,
}

/// The parameters of `skills/get`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct GetSkillParams {
    /// The URI of the skill's `SKILL.md`.
    pub uri: String,
}

/// The result of `skills/get`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct GetSkillResult {
    /// Always `"complete"`.
    #[serde(default)]
    pub result_type: Complete,
    /// The skill.
    pub skill: SkillEntry,
    /// Milliseconds the result stays fresh.
    #[serde(default)]
    pub ttl_ms: u64,
    /// Who may reuse the result.
    #[serde(default)]
    pub cache_scope: CacheScope,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "ResultMeta::is_empty")]
    pub meta: ResultMeta,
}

/// The parameters of `resources/directory/read`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct ReadResourceDirectoryParams {
    /// The directory's URI, without a trailing slash.
    pub uri: String,
    /// Where to continue; absent for the first page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cursor: Option<String>,
}

/// The result of `resources/directory/read`: the directory's direct children (not cacheable).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ReadResourceDirectoryResult {
    /// Always `"complete"`.
    #[serde(default)]
    pub result_type: Complete,
    /// This page of children: files with their resource metadata, subdirectories with
    /// [`DIRECTORY_MIME_TYPE`].
    pub resources: Vec<Resource>,
    /// Where the next page starts; absent on the last page.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
    /// Result metadata.
    #[serde(rename = "_meta", default, skip_serializing_if = "ResultMeta::is_empty")]
    pub meta: ResultMeta,
}
