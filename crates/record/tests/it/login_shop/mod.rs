//! A server-rendered shop behind a sign-in form (`tests/fixtures/login-shop`, served by this
//! test's own server on 127.0.0.1, every page and subresource answered late): a person signs
//! in, searches for a product from the product list and lands on its page, whose price is the
//! output. Recorded with trusted input, then replayed with the recorded inputs, with another
//! user and product (another price: members pay less), and with a wrong password, which must
//! fail at the step that needed the sign-in, with no output.

use browserflow_cdp::{Browser, BrowserConfig};
use browserflow_record::{InputMark, OutputMark, Recorder};
use browserflow_replay::{ReplayError, Replayer};
use browserflow_steps::{OutputKind, Step, ToolFile};
use serde_json::{Map, Value, json};

use crate::record::driver::{Driver, WAIT, options, save_and_load};

mod server;

use server::{LoginShop, PRODUCTS, USERS, price_cents};

/// Replays `file` in a fresh context of `browser` with `inputs`.
async fn replay(
    browser: &Browser,
    file: &ToolFile,
    inputs: Value,
) -> Result<Map<String, Value>, ReplayError> {
    let context = browser.new_context().await.expect("context");
    let inputs = inputs.as_object().cloned().unwrap_or_default();
    let report = Replayer::default()
        .run(&context, &file.steps, &inputs)
        .await;
    context.close().await.expect("context closes");
    report.map(|r| r.outputs)
}

/// The price `user` sees for the product named `name`, as the page shows it (a number).
fn expected_price(user: usize, name: &str) -> f64 {
    let (_, _, cents) = PRODUCTS
        .iter()
        .find(|(_, n, _)| *n == name)
        .expect("a product");
    price_cents(&USERS[user], *cents) as f64 / 100.0
}

/// Records the journey as ada: sign in, search "lamp" on the product list, land on the desk
/// lamp's page. The tool (saved and read back), its file text and the recorded outputs.
async fn record(
    shop: &LoginShop,
    browser: &Browser,
    dir: &std::path::Path,
) -> (ToolFile, String, Value) {
    let ada = &USERS[0];
    let recorder = Recorder::start_on(browser, &options(shop.url("/login")))
        .await
        .expect("recording starts");
    let d = Driver::new(recorder.page());
    // A person acts once the page has stopped moving: the late stylesheet shifts the layout.
    // (The replays are the ones that act right after `DOMContentLoaded`.)
    d.wait_js("document.getElementById('username') && document.readyState === 'complete'")
        .await;
    d.click("document.getElementById('username')").await;
    d.type_keys(ada.name).await;
    d.click("document.getElementById('password')").await;
    d.type_keys(ada.password).await;
    d.click("document.querySelector('button[type=submit]')")
        .await;
    d.wait_js("document.getElementById('q') && document.readyState === 'complete'")
        .await;
    d.click("document.getElementById('q')").await;
    d.type_keys("lamp").await;
    d.press_enter().await;
    d.wait_js("document.querySelector('[data-testid=price]')")
        .await;
    assert!(
        recorder
            .wait_until(WAIT, |s| s.iter().any(
                |s| matches!(&s.step, Step::KeyPress(k) if k.navigation.is_some())
            ))
            .await,
        "the Enter that searched is recorded with its navigation: {:#?}",
        recorder.steps()
    );
    let seen = recorder
        .page()
        .evaluate_in_main_frame(
            "[document.querySelector('[data-testid=product-name]').textContent, document.querySelector('[data-testid=price]').textContent]",
        )
        .await
        .expect("the product page reads");
    let name = recorder
        .element("main", "[data-testid=product-name]")
        .await
        .expect("the product name");
    let price = recorder
        .element("main", "[data-testid=price]")
        .await
        .expect("the price");
    let mut draft = recorder.stop().await.expect("recording stops");
    let fills: Vec<usize> = draft
        .steps
        .iter()
        .enumerate()
        .filter(|(_, s)| matches!(s.step, Step::Fill(_)))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        fills.len(),
        3,
        "user name, password, search: {:#?}",
        draft.steps
    );
    assert!(
        draft.steps[fills[1]].secret,
        "the password fill is a secret: {:#?}",
        draft.steps[fills[1]]
    );
    // The draft is kept as JSON while the person edits it: the password is not in it either.
    let draft_json = serde_json::to_string(&draft).expect("the draft serialises");
    assert!(
        !draft_json.contains(ada.password),
        "the password leaked into the draft"
    );
    draft
        .mark_input(fills[0], InputMark::string("username"))
        .expect("the user name becomes an input");
    draft
        .mark_input(fills[2], InputMark::string("product"))
        .expect("the search becomes an input");
    draft
        .mark_output(OutputMark::picked("name", &name, OutputKind::String))
        .expect("the name becomes an output");
    draft
        .mark_output(OutputMark::picked("price", &price, OutputKind::Number))
        .expect("the price becomes an output");
    let file = draft
        .into_tool_file("login-shop-price", "1.0.0", None)
        .expect("a valid tool");
    let file = save_and_load(&file, dir);
    let text = std::fs::read_to_string(dir.join(format!("{}.json", file.contract.reference())))
        .expect("the tool file reads");
    (file, text, seen)
}

/// The steps as a person tells the journey: open the sign-in page, fill the user name and the
/// password, click "Sign in", fill the search, press Enter, read the name and the price.
fn assert_reads_like_the_journey(file: &ToolFile) {
    let described: Vec<String> = file
        .steps
        .iter()
        .map(|s| serde_json::to_string(s).unwrap_or_default())
        .collect();
    let all = described.join("\n");
    let kinds: Vec<&str> = file
        .steps
        .iter()
        .map(|s| s.kind().name())
        .filter(|k| *k != "wait_for_element")
        .collect();
    assert_eq!(
        kinds,
        [
            "navigate",
            "fill",
            "fill",
            "click",
            "fill",
            "key_press",
            "extract",
            "extract"
        ],
        "{all}"
    );
    let fills: Vec<&str> = file
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Fill(f) => Some(f.value.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        fills,
        ["{{username}}", "{{password}}", "{{product}}"],
        "{all}"
    );
    let sign_in = file
        .steps
        .iter()
        .find_map(|s| match s {
            Step::Click(c) => Some(c),
            _ => None,
        })
        .expect("a click");
    assert!(
        sign_in
            .selector
            .candidates
            .iter()
            .any(|c| c.describe().contains("Sign in")),
        "the click is on the \"Sign in\" button: {all}"
    );
    assert!(sign_in.navigation.is_some(), "signing in navigates: {all}");
    let enter = file
        .steps
        .iter()
        .find_map(|s| match s {
            Step::KeyPress(k) => Some(k),
            _ => None,
        })
        .expect("a key press");
    assert_eq!(enter.key, "Enter", "{all}");
    assert!(enter.navigation.is_some(), "the search navigates: {all}");
}

#[tokio::test]
async fn a_signed_in_price_on_a_late_loading_site_replays_for_other_users_and_products_and_a_wrong_password_fails_loudly()
 {
    let shop = LoginShop::start();
    let browser = Browser::launch(&BrowserConfig::default())
        .await
        .expect("Chromium launches");
    let dir = tempfile::tempdir().unwrap();
    let (file, text, seen) = record(&shop, &browser, dir.path()).await;
    assert_eq!(seen, json!(["Desk lamp", "€44.91"]), "what the person saw");
    assert_reads_like_the_journey(&file);

    // The password is a secret input: no default, and its value is in no file.
    let password = file.contract.input("password").expect("a password input");
    assert!(password.secret);
    assert_eq!(password.schema.default, None);
    assert!(
        !text.contains(USERS[0].password),
        "the password leaked into the tool file"
    );
    let username = file.contract.input("username").expect("a username input");
    assert_eq!(username.schema.default, Some(json!("ada")));
    let product = file.contract.input("product").expect("a product input");
    assert_eq!(product.schema.default, Some(json!("lamp")));

    // The recorded inputs (the secret given, as a run gives it).
    let outputs = replay(
        &browser,
        &file,
        json!({ "username": "ada", "password": USERS[0].password, "product": "lamp" }),
    )
    .await
    .unwrap_or_else(|e| panic!("the recorded journey replays: {e}\n{text}"));
    assert_eq!(outputs["name"], "Desk lamp");
    assert_eq!(
        outputs["price"],
        json!(expected_price(0, "Desk lamp")),
        "{text}"
    );

    // Another user (no member price) and another product.
    let outputs = replay(
        &browser,
        &file,
        json!({ "username": "grace", "password": USERS[1].password, "product": "kettle" }),
    )
    .await
    .unwrap_or_else(|e| panic!("another user and product replay: {e}\n{text}"));
    assert_eq!(outputs["name"], "Electric kettle");
    assert_eq!(
        outputs["price"],
        json!(expected_price(1, "Electric kettle")),
        "{text}"
    );

    // The same product for a user without member prices: the server priced it for her.
    let outputs = replay(
        &browser,
        &file,
        json!({ "username": "grace", "password": USERS[1].password, "product": "lamp" }),
    )
    .await
    .unwrap_or_else(|e| panic!("another user replays: {e}\n{text}"));
    assert_eq!(outputs["name"], "Desk lamp");
    assert_eq!(
        outputs["price"],
        json!(expected_price(1, "Desk lamp")),
        "{text}"
    );

    // A wrong password: the server shows its error page, and the replay fails at the sign-in
    // click (its recorded navigation to the product list never happens), with no output.
    let refused_before = shop.refused.load(std::sync::atomic::Ordering::SeqCst);
    const WRONG: &str = "not-the-password-42";
    let error = replay(
        &browser,
        &file,
        json!({ "username": "ada", "password": WRONG, "product": "lamp" }),
    )
    .await
    .expect_err("a wrong password must not produce an output");
    assert_eq!(
        shop.refused.load(std::sync::atomic::Ordering::SeqCst),
        refused_before + 1,
        "the server refused the sign-in"
    );
    let ReplayError::StepFailed {
        index,
        ref kind,
        ref report,
        ..
    } = error
    else {
        panic!("a wrong password fails a step, not {error:?}");
    };
    let sign_in = file
        .steps
        .iter()
        .position(|s| matches!(s, Step::Click(_)))
        .expect("the sign-in click");
    assert_eq!(
        (index, kind.as_str()),
        (sign_in, "click"),
        "the replay must fail at the sign-in (it stays on the error page): {error}\n{text}"
    );
    assert!(
        report.outputs.is_empty(),
        "no output from a failed sign-in: {:?}",
        report.outputs
    );
    let message = error.to_string();
    assert!(
        message.starts_with(&format!("step {} ", index + 1)),
        "the error names the step: {message}"
    );
    assert!(
        !message.contains(WRONG),
        "the password is in the error: {message}"
    );
    browser.close().await.expect("browser closes");
}
