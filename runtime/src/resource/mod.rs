//! Resources: fixed URIs and URI templates, read by `resources/read` and enumerated by
//! `resources/list`.
//!
//! Write resources with [`#[resource]`](macro@crate::resource) on a plain function.

mod output;

use std::future::Future;
use std::sync::Arc;

pub use output::IntoReadResult;

use crate::completion::CompletionRequest;
use crate::context::RequestContext;
use crate::error::{BuildError, Error, Rejection};
use crate::extract::{RequestParts, Requirements};
use crate::future::BoxFuture;
use crate::method::Method;
use crate::model::{CacheHints, Completion, JsonObject, Outcome, ReadResourceResult, Resource, ResourceTemplate};
use crate::rounds::RoundDriver;
use crate::uri_template::UriTemplate;

/// What a resource function declares about itself.
#[derive(Clone, Debug)]
#[doc(hidden)]
pub struct ResourceDescriptor {
    /// The URI or URI template.
    pub template: UriTemplate,
    /// Programmatic name.
    pub name: String,
    /// Display name.
    pub title: Option<String>,
    /// What it is.
    pub description: Option<String>,
    /// MIME type of its contents.
    pub mime_type: Option<String>,
    /// Cache hints of its reads.
    pub cache: CacheHints,
}

impl ResourceDescriptor {
    pub(crate) fn resource(&self) -> Resource {
        Resource {
            uri: self.template.as_str().to_owned(),
            name: self.name.clone(),
            title: self.title.clone(),
            description: self.description.clone(),
            mime_type: self.mime_type.clone(),
            ..Default::default()
        }
    }

    pub(crate) fn resource_template(&self) -> ResourceTemplate {
        ResourceTemplate {
            uri_template: self.template.as_str().to_owned(),
            name: self.name.clone(),
            title: self.title.clone(),
            description: self.description.clone(),
            mime_type: self.mime_type.clone(),
            ..Default::default()
        }
    }
}

/// One `resources/read` as a resource function sees it.
#[derive(Debug)]
#[doc(hidden)]
pub struct ResourceRead {
    /// The normalized URI being read.
    pub uri: String,
    /// The decoded template variables, in template order.
    pub variables: Vec<String>,
    /// Answers to the previous round's input requests, on a retry.
    pub input_responses: Option<JsonObject>,
    /// The echoed `requestState`, unverified.
    pub request_state: Option<String>,
    /// The request being served.
    pub context: RequestContext,
}

impl ResourceRead {
    /// The URI, the variables, and what extractors read (generated code).
    #[doc(hidden)]
    pub fn into_parts(self) -> (String, Vec<String>, RequestParts) {
        let driver = RoundDriver::new(
            self.context,
            self.input_responses,
            self.request_state,
            Method::ResourcesRead,
            self.uri.as_str().into(),
            false,
            None,
        );
        (self.uri, self.variables, RequestParts::new(driver))
    }
}

/// The error a rejected extractor of a resource answers with (generated code): resources
/// have no error results and no rounds.
#[doc(hidden)]
pub fn rejected(rejection: Rejection) -> Error {
    match rejection {
        Rejection::Argument(message) => Error::invalid_params(message),
        Rejection::Protocol(error) => error,
        Rejection::Reask { .. } => {
            tracing::error!("a resource extractor asked a round; resources have no rounds");
            Error::internal()
        }
    }
}

/// A resource described by `#[resource]`.
#[doc(hidden)]
pub trait ResourceDefinition: Send + Sync + 'static {
    /// The descriptor, or what is wrong with it.
    fn describe() -> Result<ResourceDescriptor, String>;

    /// What the parameters need from the server.
    fn requirements(requirements: &mut Requirements) {
        let _ = requirements;
    }

    /// The OAuth scopes reading, listing, completing or following the resource needs.
    fn scopes() -> &'static [&'static str] {
        &[]
    }

    /// Reads one URI that matched.
    fn read(&self, read: ResourceRead) -> BoxFuture<'_, Result<Outcome<ReadResourceResult>, Error>>;

    /// Whether [`list`](Self::list) enumerates the template's resources.
    fn lists() -> bool {
        false
    }

    /// Lists the concrete resources of a template for `resources/list`.
    fn list(&self, _context: RequestContext) -> Option<BoxFuture<'_, Result<Vec<Resource>, Error>>> {
        None
    }

    /// Whether any template variable has a completer.
    fn completes() -> bool {
        false
    }

    /// Suggestions for the variable `request.argument`, if it has a completer.
    fn complete(&self, _request: CompletionRequest) -> Option<BoxFuture<'_, Result<Completion, Error>>> {
        None
    }
}

/// A template variable's value, parsed from its decoded text.
#[diagnostic::on_unimplemented(
    message = "a URI template variable cannot be `{Self}`",
    label = "template variables are parsed from text",
    note = "use String, or any type that implements std::str::FromStr"
)]
pub trait TemplateValue: Sized {
    /// Parses the value; `None` makes the URI unknown (-32602).
    fn parse_value(text: String) -> Option<Self>;
}

#[diagnostic::do_not_recommend]
impl<T: std::str::FromStr> TemplateValue for T {
    fn parse_value(text: String) -> Option<Self> {
        text.parse().ok()
    }
}

/// Enumerates the resources of a template: an async function taking the [`RequestContext`].
pub trait ListResources: Send + Sync + 'static {
    /// The resources visible to this request.
    fn list(&self, context: RequestContext) -> BoxFuture<'_, Result<Vec<Resource>, Error>>;
}

impl<F, Fut, R> ListResources for F
where
    F: Fn(RequestContext) -> Fut + Send + Sync + 'static,
    Fut: Future<Output = R> + Send + 'static,
    R: IntoResourceList,
{
    fn list(&self, context: RequestContext) -> BoxFuture<'_, Result<Vec<Resource>, Error>> {
        let future = self(context);
        Box::pin(async move { future.await.into_resource_list() })
    }
}

/// What a resource-listing function may return.
pub trait IntoResourceList {
    /// The resources.
    fn into_resource_list(self) -> Result<Vec<Resource>, Error>;
}

impl IntoResourceList for Vec<Resource> {
    fn into_resource_list(self) -> Result<Vec<Resource>, Error> {
        Ok(self)
    }
}

impl<E: Into<Error>> IntoResourceList for Result<Vec<Resource>, E> {
    fn into_resource_list(self) -> Result<Vec<Resource>, Error> {
        self.map_err(Into::into)
    }
}

/// A resource ready to serve.
#[derive(Clone)]
pub struct ResourceRoute {
    pub(crate) descriptor: ResourceDescriptor,
    pub(crate) handler: Arc<dyn ResourceHandler>,
    pub(crate) requirements: Requirements,
    pub(crate) scopes: Arc<[Arc<str>]>,
    /// Set when the resource is an MCP Apps view.
    pub(crate) view: Option<Arc<ViewListing>>,
}

/// How a view is listed and linked: the URI clients are given (with its content hash, when it
/// has one) and the `_meta` of its list entry and contents.
#[derive(Debug)]
pub(crate) struct ViewListing {
    /// The URI tools link to and `resources/list` shows.
    pub(crate) uri: String,
    /// `{"ui": {...}}`.
    pub(crate) meta: JsonObject,
}

impl ResourceRoute {
    /// The entry of a fixed resource in `resources/list`.
    pub(crate) fn listed(&self) -> Resource {
        let mut resource = self.descriptor.resource();
        if let Some(view) = &self.view {
            resource.uri.clone_from(&view.uri);
            resource.meta = Some(view.meta.clone());
        }
        resource
    }
}

impl std::fmt::Debug for ResourceRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResourceRoute").field("template", &self.descriptor.template).finish_non_exhaustive()
    }
}

/// Reads, lists and completes one resource, whichever way it was declared.
pub(crate) trait ResourceHandler: Send + Sync + 'static {
    fn read(&self, read: ResourceRead) -> BoxFuture<'_, Result<Outcome<ReadResourceResult>, Error>>;
    fn lists(&self) -> bool {
        false
    }
    fn list(&self, _context: RequestContext) -> Option<BoxFuture<'_, Result<Vec<Resource>, Error>>> {
        None
    }
    fn completes(&self) -> bool {
        false
    }
    fn complete(&self, _request: CompletionRequest) -> Option<BoxFuture<'_, Result<Completion, Error>>> {
        None
    }
}

struct DefinedResource<T>(T);

impl<T: ResourceDefinition> ResourceHandler for DefinedResource<T> {
    fn read(&self, read: ResourceRead) -> BoxFuture<'_, Result<Outcome<ReadResourceResult>, Error>> {
        self.0.read(read)
    }
    fn lists(&self) -> bool {
        T::lists()
    }
    fn list(&self, context: RequestContext) -> Option<BoxFuture<'_, Result<Vec<Resource>, Error>>> {
        self.0.list(context)
    }
    fn completes(&self) -> bool {
        T::completes()
    }
    fn complete(&self, request: CompletionRequest) -> Option<BoxFuture<'_, Result<Completion, Error>>> {
        self.0.complete(request)
    }
}

/// The route of a definition, or why it cannot be served.
pub(crate) fn route_of<T: ResourceDefinition>(definition: T) -> Result<ResourceRoute, BuildError> {
    let descriptor = T::describe().map_err(|problem| BuildError::InvalidResource {
        resource: std::any::type_name::<T>().rsplit("::").next().unwrap_or_default().to_owned(),
        problem,
    })?;
    let mut requirements = Requirements::default();
    T::requirements(&mut requirements);
    let scopes = T::scopes().iter().map(|&scope| Arc::from(scope)).collect();
    Ok(ResourceRoute { descriptor, handler: Arc::new(DefinedResource(definition)), requirements, scopes, view: None })
}
