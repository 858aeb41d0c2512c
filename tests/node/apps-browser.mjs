// Drives headless Chromium through an MCP Apps view in the test host (tests/src/apps_host.rs),
// as a person would: waits for the notes of the tool result in the view's frame (inside the
// sandbox proxy's frame), opens one, edits it and creates one through the view's form, checks
// that the view cannot reach the network, and keeps a screenshot. Prints one JSON object with
// what it saw, including every CSP violation.
//
//   node apps-browser.mjs '{"url": ..., "screenshot": ..., "titles": [...],
//                           "open": {"title": ..., "text": ...}, "edit": {"body": ...},
//                           "create": {"title": ..., "body": ...}}'
import { chromium } from "playwright-core";

const plan = JSON.parse(process.argv[2]);
const seen = { titles: [], violations: [], consoleViolations: [], probeConsole: [], errors: [], steps: [] };
// Set while the view is made to break its policy on purpose, whose reports are kept apart.
let probing = false;

// Records securitypolicyviolation in a document. document.open() (the proxy writes the view
// with it) drops listeners, so it is armed again in the view once it has loaded; adding the
// same function twice is a no-op.
const ARM = () => {
  window.__violations ??= [];
  window.__recordViolation ??= (e) =>
    window.__violations.push({ directive: e.effectiveDirective, blocked: e.blockedURI, document: location.href });
  document.addEventListener("securitypolicyviolation", window.__recordViolation, true);
};

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? "/usr/bin/chromium",
  headless: true,
  // Chromium's own sandbox cannot start as root in a container; the view is still sandboxed
  // by the iframes' sandbox attributes and the CSP, which is what the test is about.
  args: ["--no-sandbox"],
});
let status = 0;
const page = await browser.newPage({ viewport: { width: 720, height: 720 } });
try {
  page.on("console", (m) => {
    if (/Content Security Policy/i.test(m.text())) (probing ? seen.probeConsole : seen.consoleViolations).push(m.text());
    if (m.type() === "error" && !probing) seen.errors.push(m.text());
  });
  page.on("pageerror", (e) => seen.errors.push(`pageerror: ${e.message}`));
  await page.addInitScript(ARM);
  await page.goto(plan.url);

  const view = page.frameLocator("#frame").frameLocator("iframe");
  const notes = view.locator("#notes button");
  for (const title of plan.titles) {
    await notes.filter({ hasText: title }).first().waitFor();
  }
  seen.steps.push("titles shown");
  await view.locator("body").evaluate(ARM);

  await notes.filter({ hasText: plan.open.title }).first().click();
  await view.locator("#body", { hasText: plan.open.text }).waitFor();
  seen.steps.push("note opened");
  await page.screenshot({ path: plan.screenshot.replace(/\.png$/, "-opened.png"), fullPage: true });

  await view.locator("#edit").click();
  await view.locator("#text").fill(plan.edit.body);
  await view.locator("#save").click();
  await view.locator("#status", { hasText: `Saved ${plan.open.title}` }).waitFor();
  seen.steps.push("note edited");

  await view.locator("#new").click();
  await view.locator("#title").fill(plan.create.title);
  await view.locator("#text").fill(plan.create.body);
  await view.locator("#save").click();
  await view.locator("#status", { hasText: `Created ${plan.create.title}` }).waitFor();
  await notes.filter({ hasText: plan.create.title }).first().waitFor();
  seen.steps.push("note created");

  seen.titles = (await notes.allInnerTexts()).map((text) => text.split("\n")[0]);
  seen.violations = await view.locator("body").evaluate(() => window.__violations ?? []);
  seen.violations.push(...(await page.frameLocator("#frame").locator("body").evaluate(() => window.__violations ?? [])));
  seen.hostState = await page.locator("#state").innerText();

  // The policy is enforced, not only declared: the view may not reach even the host's origin.
  probing = true;
  seen.probe = await view.locator("body").evaluate(async (_body, url) => {
    const violation = new Promise((resolve) => document.addEventListener("securitypolicyviolation",
      (e) => resolve({ directive: e.effectiveDirective, blocked: e.blockedURI }), { once: true }));
    let fetchError = null;
    try { await fetch(url); } catch (e) { fetchError = String(e); }
    return { fetchError, violation: await violation };
  }, plan.url);
} catch (error) {
  seen.failure = String(error?.stack ?? error);
  status = 1;
} finally {
  await page.screenshot({ path: plan.screenshot, fullPage: true }).catch((e) => seen.errors.push(`screenshot: ${e}`));
  await browser.close();
}
console.log(JSON.stringify(seen));
process.exit(status);
