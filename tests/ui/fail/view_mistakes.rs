use mcp_rounds::{view, Readable};

/// A CSP entry that smuggles a directive, and one that is a path, not an origin.
#[view(
    "ui://shop/cart",
    html = "<!doctype html><p>cart</p>",
    connect_domains("https://api.shop.example; script-src *"),
    resource_domains("https://cdn.shop.example/js")
)]
struct Cart;

/// A URI that is not ui://.
#[view("https://shop.example/checkout", html = "<!doctype html><p>pay</p>")]
struct Checkout;

/// A document that loads its script from beside itself, and one from an undeclared origin.
#[view("ui://shop/receipt", html = "<!doctype html><script src=\"receipt.js\"></script>")]
struct Receipt;

#[view("ui://shop/map", html = "<!doctype html><iframe src=\"https://maps.example.com/embed\"></iframe>")]
struct Map;

/// A file that is not there.
#[view("ui://shop/missing", file = "views/missing.html")]
struct Missing;

/// A permission no host grants.
#[view("ui://shop/scan", html = "<!doctype html><p>scan</p>", permissions("usb"))]
struct Scan;

#[derive(serde::Serialize, schemars::JsonSchema)]
struct Total {
    cents: u64,
}

impl std::fmt::Display for Total {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} cents", self.cents)
    }
}

/// A link that is not a view's URI, and a visibility nobody has.
#[mcp_rounds::tool(ui = "ui://shop/cart?v=1", visibility("user"))]
fn cart_total() -> Readable<Total> {
    Readable(Total { cents: 1 })
}

fn main() {}
