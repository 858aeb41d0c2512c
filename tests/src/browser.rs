//! A person at a browser, for an authorization server's pages: it opens the authorization URL,
//! signs in on the login page and continues on the consent page (oidc-provider's development
//! interactions: any login, any password), following every redirect with its cookies, until
//! the server sends it to the client's redirect URI, which it returns instead of opening.

use std::sync::Once;

/// How many pages and redirects a login may take before the test gives up.
const MAX_STEPS: usize = 20;

/// Signs in as `login` and consents, starting at `url`; the URL under `redirect_prefix` the
/// server finally redirects to.
pub async fn sign_in(url: &str, redirect_prefix: &str, login: &str) -> Result<String, String> {
    static PROVIDER: Once = Once::new();
    // reqwest is built without a crypto provider of its own (ring is the runtime's).
    PROVIDER.call_once(|| {
        let _ = rustls::crypto::ring::default_provider().install_default();
    });
    let browser = reqwest::Client::builder()
        .cookie_store(true)
        .redirect(reqwest::redirect::Policy::none())
        .build()
        .map_err(|e| e.to_string())?;
    let mut next = reqwest::Url::parse(url).map_err(|e| e.to_string())?;
    let mut form: Option<Vec<(String, String)>> = None;
    for _ in 0..MAX_STEPS {
        let request = match form.take() {
            Some(fields) => browser.post(next.clone()).form(&fields),
            None => browser.get(next.clone()),
        };
        let response = request.send().await.map_err(|e| format!("{next}: {e}"))?;
        let status = response.status();
        if status.is_redirection() {
            let location = response.headers().get("location").and_then(|v| v.to_str().ok()).unwrap_or_default();
            let target = next.join(location).map_err(|e| format!("a redirect to {location:?}: {e}"))?;
            if target.as_str().starts_with(redirect_prefix) {
                return Ok(target.into());
            }
            next = target;
            continue;
        }
        let page = response.text().await.unwrap_or_default();
        if !status.is_success() {
            return Err(format!("{next} answered {status}: {page}"));
        }
        let (action, prompt) = form_of(&page).ok_or_else(|| format!("{next}: a page without a form:\n{page}"))?;
        let mut fields = vec![("prompt".to_owned(), prompt.clone())];
        if prompt == "login" {
            fields.push(("login".into(), login.to_owned()));
            fields.push(("password".into(), "any password".into()));
        }
        next = next.join(&action).map_err(|e| e.to_string())?;
        form = Some(fields);
    }
    Err(format!("still not redirected to {redirect_prefix} after {MAX_STEPS} steps"))
}

/// The form's action and its `prompt` (login or consent).
fn form_of(page: &str) -> Option<(String, String)> {
    let action = quoted_after(page, "action=\"")?;
    let prompt = quoted_after(page, "name=\"prompt\" value=\"")?;
    Some((action.replace("&amp;", "&"), prompt))
}

/// The text after `marker`, up to the next `"`.
fn quoted_after(text: &str, marker: &str) -> Option<String> {
    let start = text.find(marker)? + marker.len();
    text[start..].split('"').next().map(str::to_owned)
}
