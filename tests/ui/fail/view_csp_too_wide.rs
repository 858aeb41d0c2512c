use mcp_rounds::view;

/// A scheme alone allows every host, and a wildcard directly over a public suffix every site
/// anyone registers there; a wildcard over one registered domain is fine.
#[view(
    "ui://shop/cart",
    html = "<!doctype html><p>cart</p>",
    connect_domains("https:", "https://api.shop.example"),
    resource_domains("https://*.cdn.shop.example", "https://*.github.io")
)]
struct Cart;

/// A stylesheet imported from beside the view, which no host can serve.
#[view("ui://shop/theme", html = "<!doctype html><style>@import \"theme.css\";</style><p>hi</p>")]
struct Theme;

fn main() {}
