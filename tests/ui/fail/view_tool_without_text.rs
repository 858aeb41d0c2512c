use mcp_rounds::{Json, tool};

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Total {
    cents: u64,
}

/// Only JSON: a host that shows no view would show nothing a person reads.
#[tool(ui = "ui://shop/cart")]
fn cart_total() -> Result<Json<Total>, mcp_rounds::ToolError> {
    Ok(Json(Total { cents: 1 }))
}

fn main() {}
