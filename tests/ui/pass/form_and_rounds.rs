//! Every accepted shape of #[derive(Form)], #[derive(FormChoice)] and #[derive(Rounds)].

use std::collections::{BTreeSet, HashSet};

use mcp_rounds::form::{Choice, FormRequest};
use mcp_rounds::request_state::KeyRing;
use mcp_rounds::rounds::{Elicitation, Roots, RootsRequest, Round, Sampled, SamplingRequest, Step, UrlElicitation, UrlRequest};
use mcp_rounds::{Form, FormChoice, Json, Rounds, Server, handlers, tool};

#[derive(FormChoice, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
enum Plain {
    Red,
    Green,
}

#[derive(FormChoice, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[form(rename_all = "kebab-case")]
enum Titled {
    #[form(title = "Very high")]
    VeryHigh,
    #[form(title = "Low", rename = "lo")]
    Low,
}

#[derive(Form)]
#[form(rename_all = "camelCase")]
#[allow(dead_code)]
struct Everything {
    /// Free text with bounds and a default.
    #[form(min_length = 1, max_length = 80, default = "Ada", title = "Name")]
    full_name: String,
    #[form(format = "email")]
    email: Option<String>,
    #[form(format = "uri")]
    home_page: Option<String>,
    #[form(format = "date")]
    born: Option<String>,
    #[form(format = "date-time")]
    seen_at: Option<String>,
    #[form(minimum = 0, maximum = 120, default = 30)]
    age: u8,
    #[form(minimum = -1.5, maximum = 1.5)]
    offset: f64,
    #[form(default = false)]
    subscribe: bool,
    color: Plain,
    #[form(default = "lo")]
    priority: Titled,
    #[form(min_items = 1, max_items = 2, default = ["Red"])]
    colors: Vec<Plain>,
    sorted: BTreeSet<Titled>,
    hashed: Option<HashSet<Plain>>,
    picked: Choice,
    #[form(description = "Several at run time.")]
    many: Vec<Choice>,
    #[form(rename = "maybe")]
    perhaps: Option<Choice>,
}

#[derive(Form)]
struct Empty {}

#[derive(Rounds)]
#[allow(dead_code)]
enum Flow {
    #[round(single_use)]
    Ask {
        carried: Vec<String>,
        count: u32,
        #[answer]
        form: Elicitation<Everything>,
    },
    #[round(single_use = false)]
    Visit {
        #[answer(key = "open")]
        opened: UrlElicitation,
    },
    Model {
        #[answer]
        text: Sampled<String>,
        #[answer]
        parsed: Sampled<Json<Vec<u32>>>,
        #[answer]
        roots: Roots,
        #[answer]
        nothing: Elicitation<Empty>,
    },
}

/// Uses every round.
#[tool]
fn flow(round: Round<Flow>) -> Step<Flow, String> {
    match round {
        Round::Start => Flow::ask_ask(
            vec!["a".into()],
            1,
            FormRequest::new("Fill it in")
                .choices(Everything::FIELDS.picked, [("a", "A"), ("b", "B")])
                .choices(Everything::FIELDS.many, ["x", "y"])
                .choices(Everything::FIELDS.perhaps, ["p"]),
        )
        .into(),
        Round::Resumed(Flow::Ask { .. }) => Flow::ask_visit(UrlRequest::new("Go", "https://example.com/x")).into(),
        Round::Resumed(Flow::Visit { .. }) => Flow::ask_model(
            SamplingRequest::new("Say hi", 10).system_prompt("Be brief").temperature(0.2),
            SamplingRequest::new("Numbers?", 10),
            RootsRequest,
            FormRequest::new("Nothing to ask"),
        )
        .into(),
        Round::Resumed(Flow::Model { text, .. }) => Step::Done(text.value),
    }
}

fn main() {
    let _ = Server::builder("rounds", "1").state_keys(KeyRing::development()).handlers(handlers![flow]).build().unwrap();
}
