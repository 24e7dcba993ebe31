// The one way to the table: a request (a change is a POST of JSON; from another machine the
// login cookie carries the token) and the WebSocket that pushes the table's state.

export function send(path, body) {
  if (body === undefined) return fetch(path, {headers: {Accept: "application/json"}});
  return fetch(path, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
}

export async function ask(path, body) {
  // {ok, answer}: the answer as JSON, or {error} when refused
  const response = await send(path, body).catch((error) => ({ok: false, status: 0, json: async () => ({error: String(error)})}));
  const answer = await response.json().catch(() => ({error: `HTTP ${response.status}`}));
  return {ok: response.ok, answer};
}

export function follow({hello, state, open, closed}) {
  // the table's WebSocket, opened again a second after it closes
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws`);
  ws.onopen = () => open?.();
  ws.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    if ("layout" in msg) state(msg); else hello?.(msg);
  };
  ws.onclose = () => { closed?.(); setTimeout(() => follow({hello, state, open, closed}), 1000); };
}
