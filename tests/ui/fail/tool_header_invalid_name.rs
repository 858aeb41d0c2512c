use mcp_rounds::tool;

/// A header name must be an HTTP token: no spaces, no colons, not empty.
#[tool]
fn list_instances(
    #[arg(header = "Cloud Region")] region: String,
    #[arg(header = "Zone:")] zone: String,
    #[arg(header = "")] project: String,
) -> String {
    region + &zone + &project
}

fn main() {}
