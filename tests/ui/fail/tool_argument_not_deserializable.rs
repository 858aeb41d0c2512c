use mcp_rounds::tool;
use schemars::JsonSchema;

#[derive(JsonSchema)]
struct Point {
    x: f64,
}

/// The argument type has a schema but cannot be deserialized.
#[tool]
fn plot(point: Point) -> String {
    point.x.to_string()
}

fn main() {}
