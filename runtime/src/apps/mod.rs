//! MCP Apps views: HTML a host renders in a sandboxed frame beside a tool's result.
//!
//! A view is a resource at a `ui://` URI whose contents are one self-contained HTML document
//! of type `text/html;profile=mcp-app`, declaring in `_meta.ui` the origins it reaches (its
//! CSP), the browser permissions it asks for and how it prefers to be framed. A tool links to
//! it with `#[tool(ui = "ui://...")]`.
//!
//! Declare views with [`#[view]`](macro@crate::view): on a unit struct with `file = "..."` (the
//! HTML, embedded at compile time) or on a function that renders it; [`View`] is the
//! hand-written form. When the server is built every view is checked: its URI, every CSP
//! source (an origin: no scheme alone such as `https:`, no wildcard over a public suffix such
//! as `https://*.github.io`), and a fixed document's markup (one document; nothing loaded by a
//! relative URL or from an origin its CSP does not declare, in `src`, `srcset`, `href`, CSS
//! `url()` and `@import` alike). Every tool's link must name a view that exists.
//!
//! The markup check is a lint: it catches these mistakes when the server is built rather than
//! in a host. It is not a security boundary, and a document that passes it is not thereby
//! safe to render: the boundary is the host, which enforces the CSP the view declares and
//! renders it in a sandbox.
//!
//! A fixed document is served under a URI carrying its content hash (`ui://notes/board?v=…`),
//! which tools link to: a host never shows HTML cached from an older build, and a link from
//! an older build still reads (the current document).

mod check;
mod serve;

use std::future::Future;
use std::sync::Arc;

use crate::context::RequestContext;
use crate::error::{BuildError, Error};
use crate::future::BoxFuture;
use crate::model::{UiCsp, UiPermissions, UiResourceMeta};
use crate::resource::{ResourceHandler, ResourceRoute, ViewListing};

pub(crate) use check::link_tool;

/// A view ready to register with [`ServerBuilder::view`](crate::ServerBuilder::view).
///
/// ```
/// use mcp_rounds::apps::View;
/// use mcp_rounds::model::UiCsp;
/// use mcp_rounds::Server;
///
/// let board = View::document(
///     "ui://notes/board",
///     "board",
///     "<!doctype html><html><body><h1>Notes</h1></body></html>",
/// )
/// .title("Notes board")
/// .prefers_border(true);
/// let server = Server::builder("notes", "1.0.0").view(board).build().unwrap();
/// ```
pub struct View {
    uri: String,
    name: String,
    title: Option<String>,
    description: Option<String>,
    meta: UiResourceMeta,
    /// Where the HTML comes from, or why a `#[view]` function's resource could not be made.
    source: Result<Source, BuildError>,
    content_hash: bool,
}

enum Source {
    /// The same document for every read, known when the server is built.
    Document(Arc<str>),
    /// Made per read by a function.
    Rendered(Arc<dyn RenderView>),
    /// A `#[view]` function, read as the resource it expands to.
    Resource(Box<ResourceRoute>),
}

impl View {
    /// A view whose HTML is the same on every read (usually `include_str!` of a file).
    pub fn document(uri: impl Into<String>, name: impl Into<String>, html: impl Into<Arc<str>>) -> View {
        View::with_source(uri.into(), name.into(), Ok(Source::Document(html.into())))
    }

    /// A view whose HTML a function makes on each read. Its markup is checked on every read,
    /// since it cannot be when the server is built.
    ///
    /// ```
    /// use mcp_rounds::apps::View;
    /// use mcp_rounds::RequestContext;
    ///
    /// let clock = View::rendered("ui://clock/face", "clock", |_context: RequestContext| async {
    ///     Ok(format!("<!doctype html><p>Built {}</p>", env!("CARGO_PKG_VERSION")))
    /// });
    /// ```
    pub fn rendered(uri: impl Into<String>, name: impl Into<String>, render: impl RenderView) -> View {
        View::with_source(uri.into(), name.into(), Ok(Source::Rendered(Arc::new(render))))
    }

    /// The view a `#[view]` function expands to (generated code).
    #[doc(hidden)]
    pub fn from_resource<T: crate::resource::ResourceDefinition>(definition: T) -> View {
        let route = crate::resource::route_of(definition);
        let (uri, name) = match &route {
            Ok(route) => (route.descriptor.template.as_str().to_owned(), route.descriptor.name.clone()),
            Err(_) => (String::new(), String::new()),
        };
        View::with_source(uri, name, route.map(|route| Source::Resource(Box::new(route))))
    }

    fn with_source(uri: String, name: String, source: Result<Source, BuildError>) -> View {
        View { uri, name, title: None, description: None, meta: UiResourceMeta::default(), source, content_hash: true }
    }

    /// A name for people.
    pub fn title(mut self, title: impl Into<String>) -> Self {
        self.title = Some(title.into());
        self
    }

    /// What the view shows.
    pub fn description(mut self, description: impl Into<String>) -> Self {
        self.description = Some(description.into());
        self
    }

    /// The origins the view reaches beyond itself; without any, the host allows none.
    pub fn csp(mut self, csp: UiCsp) -> Self {
        self.meta.csp = Some(csp);
        self
    }

    /// The browser permissions the view asks for.
    pub fn permissions(mut self, permissions: UiPermissions) -> Self {
        self.meta.permissions = Some(permissions);
        self
    }

    /// A dedicated origin for the view, in the format the host defines (passed on as given).
    pub fn domain(mut self, domain: impl Into<String>) -> Self {
        self.meta.domain = Some(domain.into());
        self
    }

    /// Whether the host should draw a border and background around the view.
    pub fn prefers_border(mut self, prefers: bool) -> Self {
        self.meta.prefers_border = Some(prefers);
        self
    }

    /// Whether a fixed document's URI carries its content hash (the default), so that no host
    /// shows a copy cached from an older build.
    pub fn content_hash(mut self, hashed: bool) -> Self {
        self.content_hash = hashed;
        self
    }
}

impl std::fmt::Debug for View {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("View").field("uri", &self.uri).field("meta", &self.meta).finish_non_exhaustive()
    }
}

/// Makes a view's HTML on each read: an async function taking the [`RequestContext`].
pub trait RenderView: Send + Sync + 'static {
    /// The HTML document.
    fn render(&self, context: RequestContext) -> BoxFuture<'_, Result<String, Error>>;
}

impl<F, Fut> RenderView for F
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = Result<String, Error>> + Send + 'static,
{
    fn render(&self, context: RequestContext) -> BoxFuture<'_, Result<String, Error>> {
        Box::pin(self(context))
    }
}

/// A view described by `#[view]`: implemented by the item the macro is on.
#[doc(hidden)]
pub trait ViewDefinition: Send + Sync + 'static {
    /// The view, with everything the attribute declares.
    fn view(self) -> View;
}

/// Anything [`ServerBuilder::view`](crate::ServerBuilder::view) accepts: a `#[view]` item or a
/// [`View`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a view",
    label = "expected an item annotated with #[view], or a View",
    note = "put #[mcp_rounds::view(\"ui://...\")] on a unit struct (with file = \"...\") or a function, or build a View"
)]
pub trait IntoView {
    /// The view.
    fn into_view(self) -> View;
}

impl IntoView for View {
    fn into_view(self) -> View {
        self
    }
}

impl<T: ViewDefinition> IntoView for T {
    fn into_view(self) -> View {
        self.view()
    }
}

impl View {
    /// The resource that serves the view, after every check it must pass.
    pub(crate) fn into_route(mut self) -> Result<ResourceRoute, BuildError> {
        let source = self.source?;
        let uri = check::uri(&self.uri, &self.name)?;
        check::csp(&self.meta, &uri)?;
        let meta: crate::model::JsonObject =
            [("ui".to_owned(), serde_json::to_value(&self.meta).expect("plain data serializes"))].into_iter().collect();
        let stamped = |inner| -> Arc<dyn ResourceHandler> {
            Arc::new(serve::Stamped { inner, view: serve::Declarations::new(&meta, &self.meta) })
        };
        let (listed_uri, handler, route): (_, Arc<dyn ResourceHandler>, _) = match source {
            Source::Document(html) => {
                check::document(&html, &self.meta, &uri)?;
                let listed = if self.content_hash { check::versioned(&uri, &html) } else { uri.clone() };
                let handler = serve::FixedDocument { html, meta: meta.clone(), current: listed.clone() };
                (listed, Arc::new(handler), None)
            }
            Source::Rendered(render) => (uri.clone(), stamped(Arc::new(serve::RenderedHtml(render))), None),
            Source::Resource(route) => {
                self.title = self.title.or_else(|| route.descriptor.title.clone());
                self.description = self.description.or_else(|| route.descriptor.description.clone());
                (uri.clone(), stamped(route.handler.clone()), Some(*route))
            }
        };
        let descriptor = crate::resource::ResourceDescriptor {
            template: crate::uri_template::UriTemplate::parse(&uri).map_err(|e| check::invalid(&uri, e.to_string()))?,
            name: self.name,
            title: self.title,
            description: self.description,
            mime_type: Some(crate::model::UI_MIME_TYPE.to_owned()),
            cache: crate::model::CacheHints::public(0),
        };
        let listing = Some(Arc::new(ViewListing { uri: listed_uri, meta }));
        Ok(match route {
            Some(route) => ResourceRoute { descriptor, handler, view: listing, ..route },
            None => ResourceRoute {
                descriptor,
                handler,
                requirements: Default::default(),
                scopes: Arc::new([]),
                view: listing,
            },
        })
    }
}
