// What the table's scoreboard and the venue's show alike: a game's leaderboard (the people by
// rating, the table's bots apart and never rated) and a match's result in words, each side's score
// said by its name. Everything comes from the server; nothing is worked out here.

export function el(tag, text, cls) {
  const node = document.createElement(tag);
  if (text !== undefined && text !== null) node.textContent = text;
  if (cls) node.className = cls;
  return node;
}

export function when(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? iso : date.toLocaleString([], {dateStyle: "medium", timeStyle: "short"});
}

function table(caption, heads, rows) {
  const out = el("table");
  out.append(el("caption", caption));
  const head = el("tr");
  for (const h of heads) {
    const th = el("th", h);
    th.scope = "col";
    head.append(th);
  }
  out.append(head);
  for (const [name, ...values] of rows) {
    const row = el("tr");
    const th = el("th", name);
    th.scope = "row";
    row.append(th, ...values.map((v) => el("td", String(v))));
    out.append(row);
  }
  return out;
}

const rate = (p) => `${Math.round(100 * p.win_rate)} %`;

export function leaderboard(b, most = Infinity) {
  // a game's people by rating (the first `most`), and the table's bots apart, never rated
  const box = el("div", undefined, "board-table");
  box.tabIndex = 0; // it scrolls sideways on a narrow screen: keys must reach it too
  box.setAttribute("role", "region");
  box.setAttribute("aria-label", `${b.title} leaderboard`);
  if (b.players.length) {
    box.append(table(b.title, ["player", "rating", "matches", "wins", "win rate"],
      b.players.slice(0, most).map((p) => [p.name, p.rating.toFixed(1), p.matches, p.wins, rate(p)])));
  } else {
    box.append(el("p", `${b.title}: no person rated yet (a match against bots alone rates nobody).`, "empty"));
  }
  if (b.bots.length) {
    box.append(table(`${b.title}: the table's bots (not rated)`, ["bot", "strength", "matches", "wins", "win rate"],
      b.bots.slice(0, most).map((bot) => [bot.name, bot.strength, bot.matches, bot.wins, rate(bot)])));
  }
  return box;
}

export function result(m) {
  // how a match stands or ended, each side's score by its name
  if (m.state === "live") return "being played now";
  if (m.state === "unfinished") return "left unfinished";
  if (m.state === "abandoned") return "abandoned";
  if (m.state === "damaged") return `set aside: ${m.damaged}`;
  const scores = (m.scores || []).map((points, i) => `${m.names[i] || `side ${i + 1}`} ${points}`).join(", ");
  const won = m.winners.length ? `won by ${m.winners.join(" and ")}` : "nobody won";
  return `${won}${m.state === "resigned" ? " by resignation" : ""}${scores ? `: ${scores}` : ""}`;
}

export class Kiosk {
  // a TV across the bar: one panel at a time, in turn, every `every` ms; `shows(id)` says whether a
  // panel has anything to show now (the live match only while there is one)
  constructor(panels, every, shows = () => true) {
    this.panels = panels;
    this.shows = shows;
    this.turn = 0;
    document.body.classList.add("kiosk");
    this.rotate();
    setInterval(() => this.rotate(), every);
  }

  rotate() {
    const panels = this.panels.filter((id) => this.shows(id));
    const shown = panels[this.turn % panels.length];
    for (const id of this.panels) document.getElementById(id).hidden = id !== shown;
    document.body.dataset.panel = shown;
    this.turn += 1;
  }
}
