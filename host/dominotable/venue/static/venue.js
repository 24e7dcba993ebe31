// The venue's scoreboard and its kiosk view: every table's live state (fetched every second), each
// table linked to its own page, the leaderboard and the recent matches (fetched again when the
// venue's store changes). The kiosk (/kiosk, a TV across the bar) shows one panel at a time.

import {Kiosk, el, leaderboard, result, when} from "./boards.js";

const $ = (sel) => document.querySelector(sel);

function since(seconds) {
  return new Date(seconds * 1000).toTimeString().slice(0, 5);
}

function table(t) {
  const s = t.state || {};
  const box = el("article", undefined, "table-card" + (t.online ? "" : " offline"));
  box.dataset.table = t.table;
  const head = el("h3");
  const name = s.link ? el("a", `Table ${t.table}`) : el("span", `Table ${t.table}`);
  if (s.link) name.href = s.link; // the table's own scoreboard, to follow it on a phone
  head.append(name, el("span", t.online ? "online" : `offline since ${since(t.seen)}`, "link"));
  box.append(head, el("p", s.game ? [s.game.title, s.game.goal].filter(Boolean).join(", ") : "No match", "game"));
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

function match(m) {
  const box = el("article", undefined, "match");
  box.dataset.match = m.id;
  box.dataset.state = m.state;
  box.append(el("h3", `${m.title}: ${m.names.join(" v ")}`),
    el("p", [`table ${m.table}`, when(m.started), m.goal].filter(Boolean).join(" · "), "when"),
    el("p", `${result(m)}${m.demo ? " (bots' demo)" : ""}`, "result"));
  const plot = el("div", undefined, "plot-box");
  plot.innerHTML = m.plot; // drawn by the server, names escaped there
  const link = el("a", "replay move by move");
  link.href = `/replay/${m.id}`;
  box.append(plot, link);
  return box;
}

class Venue {
  constructor(kiosk) {
    this.kiosk = kiosk;
    this.version = null; // the venue's store as last fetched
  }

  async refresh() {
    const live = await fetch("/api/tables").then((r) => r.json());
    $("#tables").replaceChildren(...(live.tables.length ? live.tables.map(table) : [el("p", "No table has reported yet.", "empty")]));
    $("#broker").textContent = live.broker ? "" : "The venue cannot reach its broker: it catches up when it is back.";
    if (live.version !== this.version) {
      this.version = live.version;
      const [boards, matches] = await Promise.all([fetch("/api/leaderboard").then((r) => r.json()),
        fetch("/api/matches").then((r) => r.json())]);
      $("#boards").replaceChildren(...(boards.length ? boards.map((b) => leaderboard(b, this.kiosk ? 8 : Infinity))
        : [el("p", "No rated match yet.", "empty")]));
      $("#matches").replaceChildren(...(this.kiosk ? matches.slice(0, 3) : matches).map(match));
      document.body.dataset.version = String(this.version);
    }
  }

  async loop() {
    try { await this.refresh(); } catch (e) { /* the venue restarting: try again */ }
    setTimeout(() => this.loop(), 1000);
  }
}

const venue = new Venue(document.body.dataset.view === "kiosk");
if (venue.kiosk) new Kiosk(["live", "leaderboard", "history"], Math.max(1, Number(new URLSearchParams(location.search).get("every")) || 15) * 1000);
venue.loop();
