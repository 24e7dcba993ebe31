// The scoreboard: the live match in large type (pushed over the WebSocket), the leaderboard and
// the matches (fetched again whenever a match starts or ends), and a QR code of this page for
// phones. `?kiosk=1` is the bar's TV: larger type, one panel at a time in turn (the live match
// while there is one, the leaderboard, the latest matches), every `&every=` seconds (15).
// Everything shown comes from the server: scores, whose turn, goals and words are never worked out here.

import {linkRules} from "./rules.js";
import {Kiosk, el, leaderboard, result, when} from "./boards.js";
import {follow} from "./net.js";

const $ = (sel) => document.querySelector(sel);

function runs(game) {
  return `${game.scoring}: ${game.lower_wins ? "lower" : "higher"} is better`;
}

class Scoreboard {
  constructor(kiosk) {
    this.kiosk = kiosk;
    this.seen = null; // the match and whether it is over, as last fetched for
    this.playing = false; // a match is on at the table
  }

  live(s) {
    $("#repairs").hidden = !s.repairs.length;
    $("#repairs").textContent = s.repairs.join(" ");
    const screen = s.screen || {};
    const game = screen.game;
    this.playing = Boolean(game);
    $("#live").classList.toggle("idle", !this.playing);
    $("#live-empty").hidden = this.playing;
    $("#live-title").textContent = game ? game.title : "No match at the table";
    $("#live-goal").textContent = game ? [game.goal, runs(game)].filter(Boolean).join(" · ") : "";
    $("#live-scores").replaceChildren(...(game ? screen.scores : []).map((side) => {
      const box = el("div", undefined, "side" + (side.to_move ? " current" : ""));
      box.setAttribute("role", "listitem");
      box.append(el("span", side.name, "name"), el("span", String(side.points), "points"));
      if (side.to_move) box.append(el("span", "to play", "visually-hidden"));
      return box;
    }));
    const over = screen.kind === "over";
    $("#live-turn").replaceChildren(over ? linkRules(screen.title || "") : screen.turn ? `${screen.turn} to play` : "");
    const last = $("#live-last");
    last.textContent = game && screen.last_text ? screen.last_text : "";
    if (screen.last) last.title = screen.last.what; else last.removeAttribute("title");
    document.body.dataset.moves = game ? game.moves : 0;
    const key = `${game ? game.match : null}:${over}:${this.playing}`;
    if (key !== this.seen) { this.seen = key; this.refresh(); }
  }

  card(m) {
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
    moves.addEventListener("toggle", () => { if (moves.open && !moves.dataset.loaded) this.loadMoves(m.id, moves); });
    const links = el("p", undefined, "links");
    const replay = el("a", "replay move by move");
    replay.href = `/replay/${m.id}`;
    const rules = el("a", `${m.title} rules`);
    rules.href = `/rules/${m.card}`;
    links.append(replay, " · ", rules);
    box.append(moves, links);
    return box;
  }

  async loadMoves(id, details) {
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

  async refresh() {
    const [boards, matches] = await Promise.all([fetch("/api/leaderboard").then((r) => r.json()),
      fetch("/api/history").then((r) => r.json())]);
    $("#boards").replaceChildren(...boards.map((b) => leaderboard(b, this.kiosk ? 8 : Infinity)));
    $("#boards-empty").hidden = boards.length > 0;
    $("#matches").replaceChildren(...(this.kiosk ? matches.slice(0, 3) : matches).map((m) => this.card(m)));
    $("#matches-empty").hidden = matches.length > 0;
    document.body.dataset.refreshed = String(Number(document.body.dataset.refreshed || 0) + 1);
  }

  async followed() {
    const link = await fetch("/api/link").then((r) => r.json());
    const url = $("#follow-url");
    url.href = link.url;
    url.textContent = link.url;
    $("#qr").alt = `QR code of ${link.url}`;
    $("#follow-local").hidden = !link.local_only;
  }
}

const params = new URLSearchParams(location.search);
const board = new Scoreboard(params.get("kiosk") === "1");
if (board.kiosk) {
  new Kiosk(["live", "leaderboard", "history"], Math.max(1, Number(params.get("every")) || 15) * 1000,
    (id) => id !== "live" || board.playing);
}
board.followed();
follow({state: (s) => board.live(s)});
