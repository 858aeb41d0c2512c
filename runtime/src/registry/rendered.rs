//! Results that do not change while the server runs, rendered once when it is built: for
//! clients of this revision (with the `serverInfo` stamp) and for clients of 2025-11-25.

use std::sync::Arc;

use serde::Serialize;
use serde_json::value::RawValue;

use crate::error::Error;
use crate::model::{Implementation, WithResultMeta};
use crate::pagination::{Pager, fingerprint};
use crate::shape::Legacy;

/// Serializes a value that is known to serialize (protocol types with string keys).
pub(crate) fn render<T: Serialize + ?Sized>(value: &T) -> Box<RawValue> {
    serde_json::value::to_raw_value(value).expect("protocol types serialize to JSON")
}

/// One result, encoded for each revision.
#[derive(Debug)]
pub(crate) struct Rendered {
    /// For 2026-07-28, stamped with `serverInfo` when the server stamps.
    pub(crate) current: Box<RawValue>,
    /// For 2025-11-25: without the members 2026-07-28 added, and unstamped.
    pub(crate) legacy: Box<RawValue>,
}

impl Rendered {
    /// Renders `result` (which carries no stamp yet) for both revisions.
    pub(crate) fn new<T: Serialize + WithResultMeta>(mut result: T, stamp: Option<&Arc<Implementation>>) -> Arc<Self> {
        let legacy = render(&Legacy(&result));
        result.result_meta_mut().server_info = stamp.cloned();
        Arc::new(Rendered { current: render(&result), legacy })
    }
}

/// A list cut into pages and rendered once.
pub(crate) struct RenderedList {
    pager: Pager,
    pages: Vec<Arc<Rendered>>,
}

impl RenderedList {
    /// Pages of `items`; `render_page` renders one page given its next cursor.
    pub(crate) fn new<T: Serialize>(
        items: &[T],
        page_size: usize,
        mut render_page: impl FnMut(&[T], Option<String>) -> Arc<Rendered>,
    ) -> Self {
        let rendered: Vec<Box<RawValue>> = items.iter().map(|item| render(item)).collect();
        let pager = Pager::new(items.len(), page_size, fingerprint(rendered.iter().map(|r| r.get().as_bytes())));
        let pages = (0..pager.page_count())
            .map(|i| {
                let (range, next) = pager.page(i);
                render_page(&items[range], next)
            })
            .collect();
        RenderedList { pager, pages }
    }

    /// The page a cursor names (the first without one).
    pub(crate) fn page(&self, cursor: Option<&str>) -> Result<Arc<Rendered>, Error> {
        Ok(self.pages[self.pager.page_index(cursor)?].clone())
    }
}
