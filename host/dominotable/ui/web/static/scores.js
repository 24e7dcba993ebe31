// The scoreboard: the live match in large type (pushed over the WebSocket), the leaderboard and
// the matches (fetched again whenever a match starts or ends), and a QR code of this page for
// phones. `?kiosk=1` is the bar's TV: larger type, one panel at a time in turn (the live match
// while there is one, the leaderboard, the latest matches), every `&every=` seconds (15).
// Everything shown comes from the server: scores, whose turn, goals and words are never worked out here.

import { linkRules } from "/static/rules.js";

const $ = (sel) => document.querySelector(sel);
const params = new URLSearchParams(location.search);
const kiosk = params.get("kiosk") === "1";
const every = Math.max(1, Number(params.get("every")) || 15) * 1000;
let seen = null;
let playing = false; // a match is on at the table

function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

function when(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString([], { dateStyle: "medium", timeStyle: "short" });
}

function runs(game) {
  return `${game.scoring}: ${game.lower_wins ? "lower" : "higher"} is better`;
}

function live(s) {
  $("#repairs").hidden = !s.repairs.length;
  $("#repairs").textContent = s.repairs.join(" ");
  const screen = s.screen || {};
  const game = screen.game;
  playing = Boolean(game);
  $("#live").classList.toggle("idle", !playing);
  $("#live-empty").hidden = playing;
  $("#live-title").textContent = playing ? game.title : "No match at the table";
  $("#live-goal").textContent = playing ? [game.goal, runs(game)].filter(Boolean).join(" · ") : "";
  $("#live-scores").replaceChildren(...(playing ? screen.scores : []).map((side) => {
    const box = el("div", undefined, "side" + (side.to_move ? " current" : ""));
    box.setAttribute("role", "listitem");
    box.append(el("span", side.name, "name"), el("span", String(side.points), "points"));
    if (side.to_move) box.append(el("span", "to play", "visually-hidden"));
    return box;
  }));
  const turn = $("#live-turn");
  const over = screen.kind === "over";
  turn.replaceChildren(over ? linkRules(screen.title || "") : screen.turn ? `${screen.turn} to play` : "");
  const last = $("#live-last");
  last.textContent = playing && screen.last_text ? screen.last_text : "";
  if (screen.last) last.title = screen.last.what; else last.removeAttribute("title");
  document.body.dataset.moves = game ? game.moves : 0;
  const key = `${game ? game.match : null}:${over}:${playing}`;
  if (key !== seen) { seen = key; refresh(); }
}

function board(b) {
  const table = el("table");
  table.append(el("caption", b.title));
  const head = el("tr");
  for (const h of ["player", "rating", "matches", "wins", "win rate"]) {
    const th = el("th", h);
    th.scope = "col";
    head.append(th);
  }
  table.append(head);
  for (const p of b.players) {
    const row = el("tr");
    const name = el("th", p.name);
    name.scope = "row";
    row.append(name);
    for (const v of [p.rating.toFixed(1), p.matches, p.wins, `${Math.round(100 * p.win_rate)} %`]) row.append(el("td", String(v)));
    table.append(row);
  }
  const box = el("div", undefined, "board-table");
  box.tabIndex = 0; // it scrolls sideways on a narrow screen: keys must reach it too
  box.setAttribute("role", "region");
  box.setAttribute("aria-label", `${b.title} leaderboard`);
  box.append(table);
  return box;
}

function result(m) {
  if (m.state === "live") return "being played now";
  if (m.state === "unfinished") return "left unfinished";
  if (m.state === "abandoned") return "abandoned";
  const scores = (m.scores || []).join("–");
  const won = m.winners.length ? `won by ${m.winners.join(", ")}` : "nobody won";
  return `${won}${scores ? `, ${scores}` : ""}${m.state === "resigned" ? " (resigned)" : ""}`;
}

function card(m) {
  const box = el("article", undefined, "match");
  box.dataset.match = m.id;
  box.dataset.state = m.state;
  box.append(el("h3", `${m.title}: ${m.names.join(" v ")}`));
  box.append(el("p", [when(m.started), m.goal, m.scores_run].filter(Boolean).join(" · "), "when"));
  const outcome = el("p", result(m), "result");
  if (m.demo) outcome.append(el("span", "bots' demo, not rated", "tag"));
  box.append(outcome);
  const plot = el("div", undefined, "plot-box");
  plot.innerHTML = m.plot; // drawn by the server, names escaped there
  box.append(plot);
  const moves = el("details", undefined, "moves");
  moves.append(el("summary", `${m.moves} moves in words`));
  moves.addEventListener("toggle", () => { if (moves.open && !moves.dataset.loaded) loadMoves(m.id, moves); });
  const links = el("p", undefined, "links");
  const replay = el("a", "replay move by move");
  replay.href = `/replay/${m.id}`;
  const rules = el("a", `${m.title} rules`);
  rules.href = `/rules/${m.card}`;
  links.append(replay, " · ", rules);
  box.append(moves, links);
  return box;
}

async function loadMoves(id, details) {
  details.dataset.loaded = "1";
  const answer = await fetch(`/api/match/${id}`).then((r) => r.json());
  const list = el("ol");
  list.tabIndex = 0; // it scrolls: keys must reach it too
  list.setAttribute("aria-label", `moves of ${answer.title}`);
  for (const m of answer.moves || []) {
    const item = el("li");
    item.value = m.ply;
    const words = el("span", m.words);
    words.title = m.notation; // the notation, for those who read it
    item.append(words);
    list.append(item);
  }
  details.append(list);
}

async function refresh() {
  const [boards, matches] = await Promise.all([fetch("/api/leaderboard").then((r) => r.json()),
    fetch("/api/history").then((r) => r.json())]);
  $("#boards").replaceChildren(...boards.map(board));
  $("#boards-empty").hidden = boards.length > 0;
  $("#matches").replaceChildren(...(kiosk ? matches.slice(0, 3) : matches).map(card));
  $("#matches-empty").hidden = matches.length > 0;
  document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
}

async function follow() {
  const link = await fetch("/api/link").then((r) => r.json());
  const url = $("#follow-url");
  url.href = link.url;
  url.textContent = link.url;
  $("#qr").alt = `QR code of ${link.url}`;
  $("#follow-local").hidden = !link.local_only;
}

let turn = 0;
function rotate() {
  const panels = ["live", "leaderboard", "history"].filter((id) => id !== "live" || playing);
  const shown = panels[turn % panels.length];
  for (const id of ["live", "leaderboard", "history"]) $(`#${id}`).hidden = id !== shown;
  document.body.dataset.panel = shown;
  turn += 1;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws`);
  ws.onmessage = (event) => { const msg = JSON.parse(event.data); if ("layout" in msg) live(msg); };
  ws.onclose = () => setTimeout(connect, 1000);
}

if (kiosk) {
  document.body.classList.add("kiosk");
  rotate();
  setInterval(rotate, every);
}
follow();
connect();
