// The login page: the token typed once, sent as JSON; the table answers with a cookie (HttpOnly,
// SameSite=Strict) that lets this browser control the table until it logs out or the token changes.

const $ = (sel) => document.querySelector(sel);

async function send(path, body) {
  const response = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const answer = await response.json().catch(() => ({error: `HTTP ${response.status}`}));
  $("#error").textContent = response.ok ? "" : answer.error;
  return response.ok ? answer : null;
}

async function show() {
  const state = await fetch("/api/state").then((r) => r.json()).catch(() => ({}));
  $("#status").textContent = state.controls ? "This browser controls the table." : "This browser may only watch the table.";
  $("#logout").hidden = !state.controls;
}

$("#login").addEventListener("submit", async (event) => {
  event.preventDefault();
  const field = $("#token");
  const answer = await send("/api/login", {token: field.value});
  field.value = "";
  if (answer) location.assign("/");
});

$("#logout").addEventListener("click", async () => {
  if (await send("/api/logout", {})) show();
});

show();
