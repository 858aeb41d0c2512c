//! Logging in: OAuth 2.1 for a client whose server says `401` (features `oauth` and
//! `client-http`). Given to [`StreamableHttp::login`](crate::client::StreamableHttp::login), it
//! answers the server's challenge by itself: protected resource metadata, the authorization
//! server's metadata, the client's credentials there (registered beforehand, a client ID
//! metadata document, or dynamic registration), then a token by the authorization code grant
//! with PKCE (the person-facing step is an [`Authorizer`] the application supplies) or by the
//! client credentials grant. Tokens are kept per issuer and refreshed before they expire; a
//! `403 insufficient_scope` asks for the scope it names as well (a bounded number of times).
//!
//! What a server says is checked before the client acts on it: a secret, a private key or an
//! assertion goes only to the token endpoint of the [`Issuer`] its credentials name; a token
//! only to the resource it was issued for; the URLs a server names must be https (or http on
//! this machine), and a server off this machine may not send the client to this machine or a
//! private network unless [`LoginBuilder::allow_private_addresses`] says so; no request of a
//! login follows a redirect, and each is answered within [`OAUTH_TIMEOUT`] and
//! [`MAX_OAUTH_ANSWER`] bytes.
//!
//! ```no_run
//! use mcp_rounds::client::oauth::{Authorizer, Login, LoginError};
//! use mcp_rounds::client::{Client, StreamableHttp};
//! use mcp_rounds::future::BoxFuture;
//!
//! /// Shows the URL; the person pastes back where their browser was sent.
//! struct Paste;
//!
//! impl Authorizer for Paste {
//!     fn authorize<'a>(&'a self, url: &'a str, _redirect_uri: &'a str) -> BoxFuture<'a, Result<String, LoginError>> {
//!         Box::pin(async move {
//!             println!("Open {url}, then paste the address you were sent to:");
//!             let mut line = String::new();
//!             std::io::stdin().read_line(&mut line).map_err(|e| LoginError::Authorization(e.to_string()))?;
//!             Ok(line.trim().to_owned())
//!         })
//!     }
//! }
//!
//! # async fn run() -> Result<(), mcp_rounds::client::ClientError> {
//! let login = Login::builder("http://127.0.0.1:8976/callback", Paste)
//!     .client_metadata_url("https://agent.example.com/client-metadata.json")
//!     .build();
//! let client = Client::builder().connect(StreamableHttp::new("https://mcp.example.com/mcp").login(login)).await?;
//! # Ok(()) }
//! ```

use crate::future::BoxFuture;

mod builder;
mod challenge;
mod credentials;
mod discovery;
mod flow;
#[cfg(fuzzing)]
#[doc(hidden)]
pub mod fuzzing;
mod login;
mod registration;
mod requests;
mod store;

pub use self::builder::LoginBuilder;
use self::challenge::Challenge;
pub use self::credentials::{ClientCredentials, Issuer};
pub use self::login::Login;
pub use self::requests::{MAX_OAUTH_ANSWER, OAUTH_TIMEOUT};
pub use self::store::{SavedLogin, TokenStore};

/// Times one request may be refused and answered with a new authorization (a step-up each).
pub const MAX_AUTHORIZATIONS_PER_REQUEST: usize = 3;

/// Whether a 403's challenges ask for more scope (`insufficient_scope`), rather than refusing.
pub(crate) fn asks_for_scope<'a>(challenges: impl IntoIterator<Item = &'a str>) -> bool {
    Challenge::read(challenges).is_some_and(|c| c.wants_scope())
}

/// The person-facing step of the authorization code grant: show the person `url` (open a
/// browser, print it), and return the URL the authorization server redirected them to
/// (`redirect_uri` with `code`, `state` and perhaps `iss`), e.g. as a loopback server received it.
pub trait Authorizer: Send + Sync + 'static {
    /// Has the person authorize at `url`; the redirect's full URL.
    fn authorize<'a>(&'a self, url: &'a str, redirect_uri: &'a str) -> BoxFuture<'a, Result<String, LoginError>>;
}

/// Why no token could be had.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum LoginError {
    /// The metadata could not be found, or names another resource or issuer.
    #[error("discovery: {0}")]
    Discovery(String),
    /// The server sent the client somewhere it does not go: credentials to another issuer
    /// than theirs, a URL that is not https, an address on this machine or a private network.
    #[error("refused: {0}")]
    Refused(String),
    /// No credentials for the authorization server, or the registration failed.
    #[error("registration: {0}")]
    Registration(String),
    /// The person-facing step failed, or its redirect does not check out.
    #[error("authorization: {0}")]
    Authorization(String),
    /// The token endpoint refused.
    #[error("token: {0}")]
    Token(String),
    /// A refresh token no longer works: the person must log in again.
    #[error("log in again: {0}")]
    LoginAgain(String),
    /// More scope was asked for than the client may ask, or than a request may take.
    #[error("the server keeps asking for more scope ({0})")]
    TooManyAuthorizations(String),
}

/// Adds each scope of `text` not there yet, in order.
fn add_scopes(scopes: &mut Vec<String>, text: &str) {
    for scope in text.split_whitespace() {
        if !scopes.iter().any(|s| s == scope) {
            scopes.push(scope.to_owned());
        }
    }
}

/// The authorizer of a machine's logins, which never sends anyone anywhere.
struct NoPerson;

impl Authorizer for NoPerson {
    fn authorize<'a>(&'a self, _url: &'a str, _redirect_uri: &'a str) -> BoxFuture<'a, Result<String, LoginError>> {
        Box::pin(async { Err(LoginError::Authorization("client credentials need no person".into())) })
    }
}
