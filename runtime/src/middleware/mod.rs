//! Ready-made layers for [`ServerBuilder::layer`](crate::ServerBuilder::layer): a rate limit per
//! principal, a timeout per call, an audit log, and the telemetry every server has built in. Each is a plain [`tower::Layer`] over the
//! server's dispatch, and a short example of writing one of your own.
//!
//! ```
//! use std::time::Duration;
//!
//! use mcp_rounds::Server;
//! use mcp_rounds::middleware::{AuditLayer, RateLimitLayer, TimeoutLayer};
//!
//! let server = Server::builder("notes", "1.0.0")
//!     .layer(TimeoutLayer::new(Duration::from_secs(30)))
//!     .layer(RateLimitLayer::per_principal(20, Duration::from_secs(1)))
//!     // The last layer added sees a request first: every request is audited, refused or not.
//!     .layer(AuditLayer::tracing())
//!     .build()
//!     .unwrap();
//! ```

mod audit;
mod rate_limit;
pub(crate) mod telemetry;
mod timeout;

pub use audit::{Audit, AuditLayer, AuditOutcome, AuditRecord};
pub use rate_limit::{RateLimit, RateLimitLayer};
pub use telemetry::{Telemetry, TelemetryLayer};
pub use timeout::{Timeout, TimeoutLayer};
