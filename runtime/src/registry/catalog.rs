//! The server's resources: fixed URIs and templates, how a URI finds its resource, and
//! `resources/list` (rendered once when it is fixed, computed per request when templates list
//! their members).

use std::collections::HashMap;
use std::sync::Arc;

use super::STATIC_LIST_CACHE;
use super::rendered::{Rendered, RenderedList};
use crate::context::RequestContext;
use crate::error::{BuildError, Error};
use crate::model::{CacheHints, Implementation, ListResourceTemplatesResult, ListResourcesResult, Resource};
use crate::pagination::KeysetCursor;
use crate::resource::ResourceRoute;
use crate::uri::normalize;

/// One page of `resources/list`: rendered once when the list is fixed, computed per request
/// when templates list their members.
pub(crate) enum Listing {
    Rendered(Arc<Rendered>),
    Computed(ListResourcesResult),
}

pub(crate) struct ResourceCatalog {
    fixed: HashMap<String, ResourceRoute, foldhash::fast::RandomState>,
    /// Most specific first.
    templates: Vec<ResourceRoute>,
    /// Fixed resources in URI order, for `resources/list`.
    listed: Vec<Resource>,
    /// Templates that enumerate their members per request.
    listers: Vec<ResourceRoute>,
    /// Every scope of the listers, once each.
    lister_scopes: Vec<Arc<str>>,
    page_size: usize,
    list_cache: CacheHints,
    /// Pre-rendered pages when nothing is listed per request.
    static_list: Option<RenderedList>,
    template_list: RenderedList,
    /// Skills, whose `SKILL.md` files are listed among the resources as they are now.
    #[cfg(feature = "skills")]
    skills: Option<Arc<crate::skills::Live>>,
}

/// Where a URI led.
pub(crate) struct Found<'a> {
    pub(crate) route: &'a ResourceRoute,
    pub(crate) variables: Vec<String>,
}

impl ResourceCatalog {
    pub(crate) fn new(
        routes: Vec<ResourceRoute>,
        page_size: usize,
        list_cache: Option<CacheHints>,
        templates_cache: CacheHints,
        stamp: Option<&Arc<Implementation>>,
        #[cfg(feature = "skills")] skills: Option<Arc<crate::skills::Live>>,
    ) -> Result<Self, BuildError> {
        let mut fixed = HashMap::default();
        let mut templates = Vec::new();
        for route in routes {
            let template = &route.descriptor.template;
            if template.is_fixed() {
                let uri = normalize(template.as_str()).ok_or_else(|| BuildError::InvalidResource {
                    resource: route.descriptor.name.clone(),
                    problem: format!("{:?} is not a URI", template.as_str()),
                })?;
                if fixed.insert(uri.clone(), route).is_some() {
                    return Err(BuildError::DuplicateResource(uri));
                }
            } else {
                if templates.iter().any(|t: &ResourceRoute| t.descriptor.template == *template) {
                    return Err(BuildError::DuplicateResource(template.as_str().to_owned()));
                }
                templates.push(route);
            }
        }
        templates.sort_by(|a, b| {
            let (a, b) = (&a.descriptor.template, &b.descriptor.template);
            b.literal_len().cmp(&a.literal_len()).then_with(|| a.as_str().cmp(b.as_str()))
        });

        let mut listed: Vec<Resource> = fixed.values().map(ResourceRoute::listed).collect();
        listed.sort_by(|a, b| a.uri.cmp(&b.uri));
        let listers: Vec<ResourceRoute> = templates.iter().filter(|r| r.handler.lists()).cloned().collect();

        let mut lister_scopes: Vec<Arc<str>> = Vec::new();
        for scope in listers.iter().flat_map(|route| route.scopes.iter()) {
            if !lister_scopes.contains(scope) {
                lister_scopes.push(scope.clone());
            }
        }
        #[cfg(feature = "skills")]
        let per_request = !listers.is_empty() || skills.is_some();
        #[cfg(not(feature = "skills"))]
        let per_request = !listers.is_empty();
        let list_cache = list_cache.unwrap_or(if per_request { CacheHints::no_store() } else { STATIC_LIST_CACHE });
        let static_list = (!per_request).then(|| {
            RenderedList::new(&listed, page_size, |page, next_cursor| {
                let list = ListResourcesResult {
                    resources: page.to_vec(),
                    next_cursor,
                    ttl_ms: list_cache.ttl_ms,
                    cache_scope: list_cache.cache_scope,
                    ..Default::default()
                };
                Rendered::new(list, stamp)
            })
        });
        let mut described: Vec<_> = templates.iter().map(|r| r.descriptor.resource_template()).collect();
        described.sort_by(|a, b| a.uri_template.cmp(&b.uri_template));
        let template_list = RenderedList::new(&described, page_size, |page, next_cursor| {
            let list = ListResourceTemplatesResult {
                resource_templates: page.to_vec(),
                next_cursor,
                ttl_ms: templates_cache.ttl_ms,
                cache_scope: templates_cache.cache_scope,
                ..Default::default()
            };
            Rendered::new(list, stamp)
        });

        Ok(ResourceCatalog {
            fixed,
            templates,
            listed,
            listers,
            lister_scopes,
            page_size,
            list_cache,
            static_list,
            template_list,
            #[cfg(feature = "skills")]
            skills,
        })
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.fixed.is_empty() && self.templates.is_empty()
    }

    /// The cache hints of `resources/list`, which the skills' results share: they change as
    /// the directory does.
    #[cfg(feature = "skills")]
    pub(crate) fn list_cache(&self) -> CacheHints {
        self.list_cache
    }

    /// The most items a page of a list holds.
    #[cfg(feature = "skills")]
    pub(crate) fn page_size(&self) -> usize {
        self.page_size
    }

    /// The resource a `ref/resource` names: a template by its exact text, or a fixed URI.
    pub(crate) fn by_reference(&self, reference: &str) -> Option<&ResourceRoute> {
        self.templates
            .iter()
            .find(|route| route.descriptor.template.as_str() == reference)
            .or_else(|| normalize(reference).and_then(|uri| self.fixed.get(&uri)))
    }

    /// Whether any resource completes a variable.
    pub(crate) fn completes(&self) -> bool {
        self.templates.iter().any(|route| route.handler.completes())
    }

    /// The resource a normalized URI names. A view answers under every content hash, so that
    /// a host holding a link from an older build still reads it.
    pub(crate) fn find(&self, uri: &str) -> Option<Found<'_>> {
        if let Some(route) = self.fixed.get(uri) {
            return Some(Found { route, variables: Vec::new() });
        }
        if let Some(route) = uri.split_once("?v=").and_then(|(base, _)| self.view(base)) {
            return Some(Found { route, variables: Vec::new() });
        }
        self.templates
            .iter()
            .find_map(|route| route.descriptor.template.matches(uri).map(|variables| Found { route, variables }))
    }

    /// The view a URI names, with or without its content hash (`?v=...`).
    pub(crate) fn view(&self, uri: &str) -> Option<&ResourceRoute> {
        let base = uri.split_once("?v=").map_or(uri, |(base, _)| base);
        self.fixed.get(base).filter(|route| route.view.is_some())
    }

    /// Whether any resource is an MCP Apps view.
    pub(crate) fn has_views(&self) -> bool {
        self.fixed.values().any(|route| route.view.is_some())
    }

    /// Whether a normalized URI names a resource the server has now: one of its own, or a
    /// skill's file.
    pub(crate) fn serves(&self, uri: &str) -> bool {
        #[cfg(feature = "skills")]
        if let Some(skills) = &self.skills
            && uri.starts_with("skill://")
        {
            return skills.catalog().file(uri).is_some();
        }
        self.find(uri).is_some()
    }

    pub(crate) fn template_page(&self, cursor: Option<&str>) -> Result<Arc<Rendered>, Error> {
        self.template_list.page(cursor)
    }

    /// One page of `resources/list`.
    pub(crate) async fn list_page(&self, cursor: Option<&str>, context: &RequestContext) -> Result<Listing, Error> {
        if let Some(list) = &self.static_list {
            return Ok(Listing::Rendered(list.page(cursor)?));
        }
        let after = cursor.map(KeysetCursor::decode).transpose()?;
        // Listing runs every template's listing function: it needs all their scopes, so that
        // a caller short of one learns which (a 403 to step up from) rather than seeing less.
        let needed = self.lister_scopes.as_slice();
        if !context.principal().missing_scopes(needed).is_empty() {
            return Err(Error::insufficient_scope(needed));
        }
        let mut all = self.listed.clone();
        #[cfg(feature = "skills")]
        if let Some(skills) = &self.skills {
            all.extend(skills.catalog().listing());
        }
        for route in &self.listers {
            if let Some(listing) = route.handler.list(context.clone()) {
                all.extend(listing.await?);
            }
        }
        all.sort_by(|a, b| a.uri.cmp(&b.uri));
        all.dedup_by(|a, b| a.uri == b.uri);
        let (range, next_cursor) = KeysetCursor::page(&all, after.as_deref(), self.page_size, |r| &r.uri);
        let page = ListResourcesResult {
            resources: all.drain(range).collect(),
            next_cursor,
            ttl_ms: self.list_cache.ttl_ms,
            cache_scope: self.list_cache.cache_scope,
            ..Default::default()
        };
        Ok(Listing::Computed(page))
    }
}
