use mcp_rounds::Form;
use mcp_rounds::form::FormRequest;

#[derive(Form)]
struct Confirm {
    confirm: bool,
}

fn main() {
    // Only Choice fields take options at run time.
    let _ = FormRequest::<Confirm>::new("Sure?").choices(Confirm::FIELDS.confirm, ["yes", "no"]);
}
