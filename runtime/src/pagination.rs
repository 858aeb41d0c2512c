//! Paginated lists with opaque cursors.
//!
//! A list is sorted and cut into pages once, when the server is built. A cursor names the page
//! and a fingerprint of the whole list, so a cursor from another list, another build of the
//! server or plain garbage is refused with -32602 rather than silently giving a wrong page.

use base64::Engine as _;
use base64::engine::general_purpose::URL_SAFE_NO_PAD;

use crate::error::Error;

/// The page size used unless the server is configured otherwise.
pub const DEFAULT_PAGE_SIZE: usize = 500;

/// A cursor: where a page starts in one particular list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Cursor {
    pub(crate) fingerprint: u64,
    pub(crate) offset: usize,
}

impl Cursor {
    pub(crate) fn encode(self) -> String {
        let mut bytes = [0u8; 16];
        bytes[..8].copy_from_slice(&self.fingerprint.to_be_bytes());
        bytes[8..].copy_from_slice(&(self.offset as u64).to_be_bytes());
        URL_SAFE_NO_PAD.encode(bytes)
    }

    /// Decodes a cursor issued for the list with `fingerprint`.
    pub(crate) fn decode(cursor: &str, fingerprint: u64) -> Result<Cursor, Error> {
        let invalid = || Error::invalid_field("cursor", "Invalid cursor: it was not issued for this list");
        let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
        let bytes: [u8; 16] = bytes.try_into().map_err(|_| invalid())?;
        let found = u64::from_be_bytes(bytes[..8].try_into().expect("8 bytes"));
        let offset = u64::from_be_bytes(bytes[8..].try_into().expect("8 bytes"));
        if found != fingerprint {
            return Err(invalid());
        }
        Ok(Cursor { fingerprint, offset: usize::try_from(offset).map_err(|_| invalid())? })
    }
}

/// FNV-1a: stable across processes and builds, so every instance behind a load balancer
/// accepts the cursors of the others.
pub(crate) fn fingerprint<'a>(items: impl IntoIterator<Item = &'a [u8]>) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for item in items {
        for &b in item.iter().chain(&[0xff]) {
            hash ^= u64::from(b);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    }
    hash
}

/// The page boundaries of a list of `len` items.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pager {
    pub(crate) len: usize,
    pub(crate) page_size: usize,
    pub(crate) fingerprint: u64,
}

impl Pager {
    pub(crate) fn new(len: usize, page_size: usize, fingerprint: u64) -> Self {
        Pager { len, page_size: page_size.max(1), fingerprint }
    }

    /// The index of the page a request asks for.
    pub(crate) fn page_index(&self, cursor: Option<&str>) -> Result<usize, Error> {
        let Some(cursor) = cursor else { return Ok(0) };
        let cursor = Cursor::decode(cursor, self.fingerprint)?;
        if cursor.offset % self.page_size != 0 || cursor.offset >= self.len {
            return Err(Error::invalid_field("cursor", "Invalid cursor: it was not issued for this list"));
        }
        Ok(cursor.offset / self.page_size)
    }

    /// How many pages there are (at least one, possibly empty).
    pub(crate) fn page_count(&self) -> usize {
        self.len.div_ceil(self.page_size).max(1)
    }

    /// The item range of page `index` and the cursor of the page after it, if any.
    pub(crate) fn page(&self, index: usize) -> (std::ops::Range<usize>, Option<String>) {
        let start = (index * self.page_size).min(self.len);
        let end = (start + self.page_size).min(self.len);
        let next = (end < self.len).then(|| Cursor { fingerprint: self.fingerprint, offset: end }.encode());
        (start..end, next)
    }
}

/// A cursor for a list computed per request (it may change between pages): it names the
/// last key of the previous page, so the next page starts after it whatever was added or
/// removed meanwhile. A checksum refuses cursors that were not issued by this server.
pub(crate) struct KeysetCursor;

impl KeysetCursor {
    const TAG: &'static [u8] = b"mcp-rounds/keyset/1";

    pub(crate) fn encode(last_key: &str) -> String {
        let sum = fingerprint([Self::TAG, last_key.as_bytes()]);
        let mut bytes = sum.to_be_bytes().to_vec();
        bytes.extend_from_slice(last_key.as_bytes());
        URL_SAFE_NO_PAD.encode(bytes)
    }

    pub(crate) fn decode(cursor: &str) -> Result<String, Error> {
        let invalid = || Error::invalid_field("cursor", "Invalid cursor: it was not issued for this list");
        let bytes = URL_SAFE_NO_PAD.decode(cursor).map_err(|_| invalid())?;
        if bytes.len() < 8 {
            return Err(invalid());
        }
        let (sum, key) = bytes.split_at(8);
        let key = std::str::from_utf8(key).map_err(|_| invalid())?;
        if sum != fingerprint([Self::TAG, key.as_bytes()]).to_be_bytes() {
            return Err(invalid());
        }
        Ok(key.to_owned())
    }

    /// The page of at most `page_size` of `items` (sorted by `key`) that follows the item keyed
    /// `after` (a decoded cursor; `None`: the first page), and the cursor of the page after it.
    pub(crate) fn page<T>(
        items: &[T],
        after: Option<&str>,
        page_size: usize,
        key: impl Fn(&T) -> &str,
    ) -> (std::ops::Range<usize>, Option<String>) {
        let start = after.map_or(0, |last| items.partition_point(|item| key(item) <= last));
        let end = (start + page_size).min(items.len());
        let next = (end < items.len()).then(|| Self::encode(key(&items[end - 1])));
        (start..end, next)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn pages_cover_the_list_in_order() {
        let pager = Pager::new(5, 2, 42);
        assert_eq!(pager.page_count(), 3);
        let mut seen = Vec::new();
        let mut cursor: Option<String> = None;
        loop {
            let index = pager.page_index(cursor.as_deref()).unwrap();
            let (range, next) = pager.page(index);
            seen.extend(range);
            match next {
                Some(c) => cursor = Some(c),
                None => break,
            }
        }
        assert_eq!(seen, vec![0, 1, 2, 3, 4]);
    }

    #[test]
    fn foreign_and_malformed_cursors_are_refused() {
        let pager = Pager::new(5, 2, 42);
        let other = Cursor { fingerprint: 43, offset: 2 }.encode();
        for bad in [other.as_str(), "", "!!!", "AAAA", &Cursor { fingerprint: 42, offset: 3 }.encode()] {
            let err = pager.page_index(Some(bad)).unwrap_err();
            assert_eq!(err.code(), crate::ErrorCode::InvalidParams, "{bad}");
            assert_eq!(err.data().unwrap()["field"], "cursor");
        }
        let past_end = Cursor { fingerprint: 42, offset: 6 }.encode();
        assert!(pager.page_index(Some(&past_end)).is_err());
    }

    #[test]
    fn empty_list_has_one_empty_page() {
        let pager = Pager::new(0, 10, 1);
        assert_eq!(pager.page_count(), 1);
        assert_eq!(pager.page(0), (0..0, None));
    }

    #[test]
    fn fingerprint_depends_on_items_and_boundaries() {
        assert_ne!(fingerprint([&b"ab"[..], b"c"]), fingerprint([&b"a"[..], b"bc"]));
        assert_eq!(fingerprint([&b"ab"[..]]), fingerprint([&b"ab"[..]]));
    }

    #[test]
    fn keyset_cursors_round_trip_and_refuse_forgeries() {
        let cursor = KeysetCursor::encode("notes://n/42");
        assert_eq!(KeysetCursor::decode(&cursor).unwrap(), "notes://n/42");
        let mut forged = cursor.clone();
        forged.pop();
        forged.push(if cursor.ends_with('A') { 'B' } else { 'A' });
        assert!(KeysetCursor::decode(&forged).is_err());
        assert!(KeysetCursor::decode("").is_err());
        assert!(KeysetCursor::decode(&URL_SAFE_NO_PAD.encode(b"12345678notes://n/42")).is_err());
    }

    proptest! {
        #[test]
        fn any_string_is_either_a_valid_cursor_or_refused(s in ".*") {
            let pager = Pager::new(100, 7, 9);
            if let Ok(i) = pager.page_index(Some(&s)) {
                prop_assert!(i < pager.page_count());
            }
        }

        #[test]
        fn cursors_round_trip(fp in any::<u64>(), offset in 0usize..1_000_000) {
            let c = Cursor { fingerprint: fp, offset };
            prop_assert_eq!(Cursor::decode(&c.encode(), fp).unwrap(), c);
        }
    }
}
