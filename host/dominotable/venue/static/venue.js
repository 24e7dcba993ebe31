// The venue's scoreboard and its kiosk view: every table's live state (fetched every second),
// the leaderboard and the recent matches (fetched again when the venue's store changes).

const $ = (sel) => document.querySelector(sel);
const kiosk = document.body.classList.contains("kiosk");
let version = null;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function since(seconds) {
  return new Date(seconds * 1000).toTimeString().slice(0, 5);
}

function table(t) {
  const s = t.state || {};
  const box = el("article", undefined, "table-card" + (t.online ? "" : " offline"));
  box.dataset.table = t.table;
  const head = el("h3", `Table ${t.table}`);
  head.append(el("span", t.online ? "online" : `offline since ${since(t.seen)}`, "link"));
  box.append(head, el("p", s.game ? s.game.title + (s.target ? ` to ${s.target}` : "") : "No match", "game"));
  const scores = el("div", undefined, "scores");
  for (const side of s.scores || []) {
    const row = el("div", undefined, "side" + (side.to_move ? " current" : ""));
    row.append(el("span", side.name, "name"), el("span", String(side.points), "points"));
    scores.append(row);
  }
  box.append(scores);
  if (s.kind === "play" && s.turn) box.append(el("p", `${s.turn} to play`, "turn"));
  if (s.last_text) box.append(el("p", s.last_text, "last"));
  const prompt = s.kind === "play" ? "" : [s.title, s.text].filter(Boolean).join(": ");
  if (prompt) box.append(el("p", prompt, "prompt"));
  return box;
}

function boards(list) {
  if (!list.length) return [el("p", "No rated match yet.", "empty")];
  return list.map((board) => {
    const box = el("div", undefined, "board-table");
    const rows = el("table");
    const head = el("tr");
    for (const h of ["player", "rating", "matches", "wins", "win rate"]) head.append(el("th", h));
    rows.append(head);
    for (const p of board.players.slice(0, kiosk ? 8 : undefined)) {
      const row = el("tr");
      for (const v of [p.name, p.rating.toFixed(1), p.matches, p.wins, `${Math.round(100 * p.win_rate)} %`]) row.append(el("td", String(v)));
      rows.append(row);
    }
    box.append(el("h3", board.title), rows);
    return box;
  });
}

function match(m) {
  const box = el("article", undefined, "match");
  box.dataset.match = m.id;
  const result = m.damaged ? `set aside: ${m.damaged}` : !m.finished ? "being played"
    : m.ending === "abandoned" ? "abandoned" : `won by ${m.winners.join(", ") || "nobody"}`;
  box.append(el("h3", `${m.title}: ${m.names.join(" v ")}`),
    el("p", `table ${m.table}, ${m.started.slice(0, 16).replace("T", " ")}, ${result}${m.demo ? " (bots' demo)" : ""}`));
  const plot = el("div", undefined, "plot-box");
  plot.innerHTML = m.plot; // drawn by the server, names escaped there
  const link = el("a", "replay move by move");
  link.href = `/replay/${m.id}`;
  box.append(plot, link);
  return box;
}

async function refresh() {
  const live = await fetch("/api/tables").then((r) => r.json());
  $("#tables").replaceChildren(...(live.tables.length ? live.tables.map(table) : [el("p", "No table has reported yet.", "empty")]));
  if ($("#broker")) $("#broker").textContent = live.broker ? "" : "The venue cannot reach its broker: it catches up when it is back.";
  if (live.version !== version) {
    version = live.version;
    const [list, matches] = await Promise.all([fetch("/api/leaderboard").then((r) => r.json()),
      kiosk ? [] : fetch("/api/matches").then((r) => r.json())]);
    $("#boards").replaceChildren(...boards(list));
    if (!kiosk) $("#matches").replaceChildren(...matches.map(match));
    document.body.dataset.version = String(version);
  }
}

async function loop() {
  try { await refresh(); } catch (e) { /* the venue restarting: try again */ }
  setTimeout(loop, 1000);
}

loop();
