//! The protocol model of revision 2026-07-28, one Rust type per schema type, named as the
//! revision names them. Every type round-trips through serde exactly.

/// A JSON object.
pub type JsonObject = serde_json::Map<String, serde_json::Value>;

/// Declares a unit type that serializes as one fixed string and accepts only that string.
macro_rules! literal {
    ($(#[$doc:meta])* $name:ident = $wire:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct $name;

        impl $name {
            /// The wire value.
            pub const WIRE: &'static str = $wire;
        }

        impl serde::Serialize for $name {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str($wire)
            }
        }

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                struct V;
                impl serde::de::Visitor<'_> for V {
                    type Value = $name;
                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        write!(f, "{:?}", $wire)
                    }
                    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<$name, E> {
                        if v == $wire {
                            Ok($name)
                        } else {
                            Err(E::invalid_value(serde::de::Unexpected::Str(v), &self))
                        }
                    }
                }
                deserializer.deserialize_str(V)
            }
        }
    };
}
pub(crate) use literal;

mod apps;
mod capabilities;
mod completion;
mod content;
mod discover;
mod elicitation;
mod id;
mod implementation;
mod legacy;
mod meta;
mod mrtr;
pub mod notifications;
mod prompts;
mod request;
mod resources;
pub(crate) mod result;
pub(crate) use result::WithResultMeta;
mod roots;
mod sampling;
mod skills;
pub mod subscriptions;
mod tasks;
mod tools;

pub use apps::*;
pub use capabilities::*;
pub use completion::*;
pub use content::*;
pub use discover::*;
pub use elicitation::*;
pub use id::RequestId;
pub use implementation::*;
pub use legacy::*;
pub use meta::*;
pub use mrtr::*;
pub use notifications::{CancelledNotificationParams, LoggingMessageNotificationParams, ProgressNotificationParams};
pub use prompts::*;
pub use request::*;
pub use resources::*;
pub use result::{
    CacheHints, CacheScope, Complete, InputRequired, MayRequireInput, Outcome, PaginatedRequestParams, ResultType,
};
pub use roots::*;
pub use sampling::*;
pub use skills::*;
pub use subscriptions::{
    ResourceUpdatedNotificationParams, SubscriptionEventParams, SubscriptionFilter,
    SubscriptionsAcknowledgedNotificationParams, SubscriptionsListenRequestParams, SubscriptionsListenResult,
};
pub use tasks::*;
pub use tools::*;
