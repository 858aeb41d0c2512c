//! The skills extension's methods (`skills/list`, `skills/get`, `resources/directory/read`)
//! and the skills' files among the resources, all answered from the catalog as it is at the
//! request: one request never sees two versions of the directory.

use serde_json::json;
use serde_json::value::RawValue;

use super::request::parse_params;
use super::response::Reply;
use crate::error::Error;
use crate::method::Method;
use crate::model::{
    GetSkillParams, GetSkillResult, ListSkillsResult, PaginatedRequestParams, ReadResourceDirectoryParams,
    ReadResourceDirectoryResult, ReadResourceResult,
};
use crate::pagination::KeysetCursor;
use crate::registry::Registry;
use crate::skills::{Child, Live};

/// Answers one of the extension's methods (`skills/list`, `skills/get`,
/// `resources/directory/read`).
pub(super) fn answer(
    registry: &Registry,
    skills: &Live,
    method: Method,
    raw: Option<&RawValue>,
) -> Result<Reply, Error> {
    let catalog = skills.catalog();
    let page_size = registry.resources.page_size();
    let hints = registry.resources.list_cache();
    match method {
        Method::SkillsList => {
            let p: PaginatedRequestParams = parse_params(raw)?;
            let skills: Vec<_> = catalog.skills().collect();
            // Keyed by path, the order the catalog keeps them in.
            let after = p.cursor.as_deref().map(KeysetCursor::decode).transpose()?;
            let (range, next_cursor) = KeysetCursor::page(&skills, after.as_deref(), page_size, |s| s.path());
            Ok(ListSkillsResult {
                skills: skills[range].iter().map(|skill| skill.entry()).collect(),
                next_cursor,
                ttl_ms: hints.ttl_ms,
                cache_scope: hints.cache_scope,
                ..Default::default()
            }
            .into())
        }
        Method::SkillsGet => {
            let p: GetSkillParams = parse_params(raw)?;
            let skill = catalog.get(&p.uri).ok_or_else(|| {
                Error::invalid_params(format!("No skill is served at {}", p.uri)).with_data(json!({ "uri": p.uri }))
            })?;
            Ok(GetSkillResult {
                skill: skill.entry(),
                ttl_ms: hints.ttl_ms,
                cache_scope: hints.cache_scope,
                ..Default::default()
            }
            .into())
        }
        _ => {
            let p: ReadResourceDirectoryParams = parse_params(raw)?;
            let children = catalog.directory(&p.uri).ok_or_else(|| {
                let problem = match catalog.file(&p.uri) {
                    Some(_) => "is a file, not a directory resource",
                    None => "is not a directory resource of the skills served",
                };
                Error::invalid_params(format!("{} {problem}", p.uri)).with_data(json!({ "uri": p.uri }))
            })?;
            let after = p.cursor.as_deref().map(KeysetCursor::decode).transpose()?;
            let (range, next_cursor) = KeysetCursor::page(children, after.as_deref(), page_size, Child::path);
            Ok(ReadResourceDirectoryResult {
                resources: children[range].iter().map(|child| child.resource()).collect(),
                next_cursor,
                ..Default::default()
            }
            .into())
        }
    }
}

/// `resources/read` of a skill's file, when `uri` is one (`None`: not a skill's URI at all).
pub(super) fn read(registry: &Registry, skills: &Live, uri: &str) -> Option<Result<ReadResourceResult, Error>> {
    if !uri.starts_with("skill://") {
        return None;
    }
    let Some(contents) = skills.catalog().contents(uri) else {
        return Some(Err(Error::resource_not_found(uri)));
    };
    let hints = registry.resources.list_cache();
    let mut result = ReadResourceResult::new(vec![contents]);
    result.ttl_ms = hints.ttl_ms;
    result.cache_scope = hints.cache_scope;
    Some(Ok(result))
}
