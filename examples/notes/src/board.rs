//! The notes board: a view for hosts that render MCP Apps, linked from `notes_list`. It shows
//! the notes of the result it is given and reads and writes them by calling tools through the
//! host; it fetches nothing itself, so it declares no CSP origins.

use mcp_rounds::view;

/// The notes of a workspace as cards: open one, edit it, or create a note.
#[view("ui://notes/board", file = "views/board.html", name = "board", title = "Notes board", prefers_border)]
pub struct Board;
