// The scoreboard: the live match in large type (pushed over the WebSocket), the leaderboard and
// the match history (fetched again whenever a match ends or a new one starts).

const $ = (sel) => document.querySelector(sel);
let seen = null;

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function live(s) {
  $("#repairs").hidden = !s.repairs.length;
  $("#repairs").textContent = s.repairs.join(" ");
  $("#live-title").textContent = s.title ? s.title + (s.target ? ` to ${s.target}` : "") : "No match at the table";
  $("#live-scores").replaceChildren(...s.scores.map((side) => {
    const box = el("div", undefined, "side" + (s.turn && side.name.split(" & ").includes(s.turn) ? " current" : ""));
    box.append(el("span", side.name, "name"), el("span", String(side.points), "points"));
    return box;
  }));
  $("#live-turn").textContent = s.mode === "over" ? (s.prompt || "") : s.turn ? `${s.turn} to play` : "";
  $("#live-last").textContent = s.last_text || "";
  document.body.dataset.moves = s.moves;
  const key = `${s.match}:${s.mode === "over"}`;
  if (key !== seen) { seen = key; refresh(); }
}

async function refresh() {
  const [boards, matches] = await Promise.all([fetch("/api/leaderboard").then((r) => r.json()),
    fetch("/api/history").then((r) => r.json())]);
  $("#boards").replaceChildren(...boards.map((board) => {
    const box = el("div", undefined, "board-table");
    const table = el("table");
    const head = el("tr");
    for (const h of ["player", "rating", "matches", "wins", "win rate"]) head.append(el("th", h));
    table.append(head);
    for (const p of board.players) {
      const row = el("tr");
      for (const v of [p.name, p.rating.toFixed(1), p.matches, p.wins, `${Math.round(100 * p.win_rate)} %`]) row.append(el("td", String(v)));
      table.append(row);
    }
    box.append(el("h3", board.title), table);
    return box;
  }));
  $("#matches").replaceChildren(...matches.map((m) => {
    const box = el("article", undefined, "match");
    box.dataset.match = m.id;
    const result = m.finished ? (m.ending === "abandoned" ? "abandoned" : `won by ${m.winners.join(", ") || "nobody"}`) : "being played";
    box.append(el("h3", `${m.title}, match ${m.id}: ${m.names.join(" v ")}`), el("p", `${m.started.slice(0, 16).replace("T", " ")}, ${result}`));
    const plot = el("div", undefined, "plot-box");
    plot.innerHTML = m.plot; // drawn by the server, names escaped there
    const link = el("a", "replay move by move");
    link.href = `/replay/${m.id}`;
    box.append(plot, link);
    return box;
  }));
  document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws`);
  ws.onmessage = (event) => { const msg = JSON.parse(event.data); if ("layout" in msg) live(msg); };
  ws.onclose = () => setTimeout(connect, 1000);
}

connect();
