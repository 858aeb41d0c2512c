//! What a result looks like to a client of an earlier revision: the same members, minus the
//! ones 2026-07-28 added (`resultType`, `ttlMs`, `cacheScope`).
//!
//! [`Legacy`] serializes any result through a serializer that leaves those top-level members
//! out as they are written, so the translation works on the typed result: nothing is encoded
//! twice and no bytes are read back.

use std::fmt;

use serde::ser::{self, Impossible, Serialize, SerializeMap, SerializeStruct, Serializer};

/// Top-level result members that revision 2026-07-28 added.
pub(crate) const ADDED_MEMBERS: &[&str] = &["resultType", "ttlMs", "cacheScope"];

/// `T` as a 2025-11-25 client expects it.
pub(crate) struct Legacy<'a, T: ?Sized>(pub(crate) &'a T);

impl<T: Serialize + ?Sized> Serialize for Legacy<'_, T> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(Dropping(serializer))
    }
}

/// Forwards everything to `S`, but a struct's or map's members named in [`ADDED_MEMBERS`].
struct Dropping<S>(S);

macro_rules! forward {
    ($($method:ident($($arg:ident: $ty:ty),*) -> $out:ty;)*) => {$(
        fn $method(self, $($arg: $ty),*) -> Result<$out, S::Error> {
            self.0.$method($($arg),*)
        }
    )*};
}

impl<S: Serializer> Serializer for Dropping<S> {
    type Ok = S::Ok;
    type Error = S::Error;
    type SerializeSeq = S::SerializeSeq;
    type SerializeTuple = S::SerializeTuple;
    type SerializeTupleStruct = S::SerializeTupleStruct;
    type SerializeTupleVariant = S::SerializeTupleVariant;
    type SerializeMap = DropMembers<S::SerializeMap>;
    type SerializeStruct = DropMembers<S::SerializeStruct>;
    type SerializeStructVariant = S::SerializeStructVariant;

    forward! {
        serialize_bool(v: bool) -> S::Ok;
        serialize_i8(v: i8) -> S::Ok;
        serialize_i16(v: i16) -> S::Ok;
        serialize_i32(v: i32) -> S::Ok;
        serialize_i64(v: i64) -> S::Ok;
        serialize_i128(v: i128) -> S::Ok;
        serialize_u8(v: u8) -> S::Ok;
        serialize_u16(v: u16) -> S::Ok;
        serialize_u32(v: u32) -> S::Ok;
        serialize_u64(v: u64) -> S::Ok;
        serialize_u128(v: u128) -> S::Ok;
        serialize_f32(v: f32) -> S::Ok;
        serialize_f64(v: f64) -> S::Ok;
        serialize_char(v: char) -> S::Ok;
        serialize_str(v: &str) -> S::Ok;
        serialize_bytes(v: &[u8]) -> S::Ok;
        serialize_none() -> S::Ok;
        serialize_unit() -> S::Ok;
        serialize_unit_struct(name: &'static str) -> S::Ok;
        serialize_unit_variant(name: &'static str, index: u32, variant: &'static str) -> S::Ok;
        serialize_seq(len: Option<usize>) -> S::SerializeSeq;
        serialize_tuple(len: usize) -> S::SerializeTuple;
        serialize_tuple_struct(name: &'static str, len: usize) -> S::SerializeTupleStruct;
        serialize_tuple_variant(name: &'static str, index: u32, variant: &'static str, len: usize)
            -> S::SerializeTupleVariant;
        serialize_struct_variant(name: &'static str, index: u32, variant: &'static str, len: usize)
            -> S::SerializeStructVariant;
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_some(value)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(self, name: &'static str, value: &T) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_struct(name, value)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<S::Ok, S::Error> {
        self.0.serialize_newtype_variant(name, index, variant, value)
    }

    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, S::Error> {
        // The length changes with what is dropped.
        Ok(DropMembers { inner: self.0.serialize_map(None)?, skip_value: false })
    }

    fn serialize_struct(self, name: &'static str, len: usize) -> Result<Self::SerializeStruct, S::Error> {
        Ok(DropMembers { inner: self.0.serialize_struct(name, len)?, skip_value: false })
    }
}

/// A struct or map whose added members are left out.
struct DropMembers<M> {
    inner: M,
    /// The key just seen was dropped: so is its value.
    skip_value: bool,
}

impl<M: SerializeStruct> SerializeStruct for DropMembers<M> {
    type Ok = M::Ok;
    type Error = M::Error;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, key: &'static str, value: &T) -> Result<(), M::Error> {
        if ADDED_MEMBERS.contains(&key) { Ok(()) } else { self.inner.serialize_field(key, value) }
    }

    fn skip_field(&mut self, key: &'static str) -> Result<(), M::Error> {
        self.inner.skip_field(key)
    }

    fn end(self) -> Result<M::Ok, M::Error> {
        self.inner.end()
    }
}

impl<M: SerializeMap> SerializeMap for DropMembers<M> {
    type Ok = M::Ok;
    type Error = M::Error;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), M::Error> {
        if key.serialize(KeyName).is_ok_and(|name| name.is_some_and(|n| ADDED_MEMBERS.contains(&n.as_str()))) {
            self.skip_value = true;
            return Ok(());
        }
        self.inner.serialize_key(key)
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), M::Error> {
        if std::mem::take(&mut self.skip_value) { Ok(()) } else { self.inner.serialize_value(value) }
    }

    fn end(self) -> Result<M::Ok, M::Error> {
        self.inner.end()
    }
}

/// Reads a map key that is a string; any other key is none of the added members.
struct KeyName;

#[derive(Debug)]
struct NotAString;

impl fmt::Display for NotAString {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("not a string key")
    }
}

impl std::error::Error for NotAString {}

impl ser::Error for NotAString {
    fn custom<T: fmt::Display>(_: T) -> Self {
        NotAString
    }
}

macro_rules! not_a_string {
    ($($method:ident($($ty:ty),*);)*) => {$(
        fn $method(self, $(_: $ty),*) -> Result<Option<String>, NotAString> {
            Ok(None)
        }
    )*};
}

impl Serializer for KeyName {
    type Ok = Option<String>;
    type Error = NotAString;
    type SerializeSeq = Impossible<Option<String>, NotAString>;
    type SerializeTuple = Impossible<Option<String>, NotAString>;
    type SerializeTupleStruct = Impossible<Option<String>, NotAString>;
    type SerializeTupleVariant = Impossible<Option<String>, NotAString>;
    type SerializeMap = Impossible<Option<String>, NotAString>;
    type SerializeStruct = Impossible<Option<String>, NotAString>;
    type SerializeStructVariant = Impossible<Option<String>, NotAString>;

    fn serialize_str(self, v: &str) -> Result<Option<String>, NotAString> {
        Ok(Some(v.to_owned()))
    }

    not_a_string! {
        serialize_bool(bool);
        serialize_i8(i8);
        serialize_i16(i16);
        serialize_i32(i32);
        serialize_i64(i64);
        serialize_u8(u8);
        serialize_u16(u16);
        serialize_u32(u32);
        serialize_u64(u64);
        serialize_f32(f32);
        serialize_f64(f64);
        serialize_char(char);
        serialize_bytes(&[u8]);
        serialize_none();
        serialize_unit();
        serialize_unit_struct(&'static str);
        serialize_unit_variant(&'static str, u32, &'static str);
    }

    fn serialize_some<T: Serialize + ?Sized>(self, _: &T) -> Result<Option<String>, NotAString> {
        Ok(None)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<Option<String>, NotAString> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: &T,
    ) -> Result<Option<String>, NotAString> {
        Ok(None)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self::SerializeSeq, NotAString> {
        Err(NotAString)
    }

    fn serialize_tuple(self, _: usize) -> Result<Self::SerializeTuple, NotAString> {
        Err(NotAString)
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeTupleStruct, NotAString> {
        Err(NotAString)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeTupleVariant, NotAString> {
        Err(NotAString)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self::SerializeMap, NotAString> {
        Err(NotAString)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self::SerializeStruct, NotAString> {
        Err(NotAString)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self::SerializeStructVariant, NotAString> {
        Err(NotAString)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::Legacy;
    use crate::model::{
        CacheHints, CallToolResult, CreateTaskResult, ListToolsResult, ReadResourceResult, Task, TaskStatus, Tool,
    };

    fn legacy<T: serde::Serialize>(value: &T) -> serde_json::Value {
        serde_json::to_value(Legacy(value)).unwrap()
    }

    #[test]
    fn results_lose_the_members_2026_added_and_keep_the_rest() {
        let call = legacy(&CallToolResult::text("hi"));
        assert_eq!(call, json!({"content": [{"type": "text", "text": "hi"}]}));

        let hints = CacheHints::public(1000);
        let list = ListToolsResult {
            tools: vec![Tool::new("a", Tool::no_arguments_schema())],
            next_cursor: Some("c".into()),
            ttl_ms: hints.ttl_ms,
            cache_scope: hints.cache_scope,
            ..Default::default()
        };
        let list = legacy(&list);
        assert_eq!(list["nextCursor"], "c");
        assert_eq!(list["tools"][0]["name"], "a");
        for member in super::ADDED_MEMBERS {
            assert!(list.get(member).is_none(), "{member} in {list}");
        }
        let read = legacy(&ReadResourceResult::default());
        assert!(read.get("resultType").is_none() && read.get("contents").is_some(), "{read}");
    }

    #[test]
    fn flattened_results_lose_them_too() {
        let created = CreateTaskResult {
            result_type: Default::default(),
            task: Task {
                task_id: "t".into(),
                status: TaskStatus::Working,
                status_message: None,
                created_at: "x".into(),
                last_updated_at: "y".into(),
                ttl_ms: Some(5),
                poll_interval_ms: None,
            },
            meta: Default::default(),
        };
        let created = legacy(&created);
        assert_eq!(created["taskId"], "t");
        assert!(created.get("resultType").is_none() && created.get("ttlMs").is_none(), "{created}");
    }
}
