// The setup form: every game, its options (each with a line of help), the players, and each seat
// a person or a bot at a strength a person understands (easy, normal, hard: the words come with
// the offer). What it offers is asked of the table while the setup is open.

import {ask} from "./net.js";

export class SetupForm {
  constructor(root) {
    this.root = root;
    this.offer = null; // what the setup offers (GET /api/setup), while it is open
    this.$ = (sel) => root.querySelector(sel);
    this.$("#setup-game").addEventListener("change", () => this.showGame());
    this.$("#setup-players").addEventListener("change", () => this.showSeats());
    this.$("#setup-form").addEventListener("submit", (event) => { event.preventDefault(); this.start(); });
  }

  async render(open) {
    this.root.hidden = !open;
    if (!open) { this.offer = null; return; }
    if (this.offer) return;
    this.offer = {loading: true};
    const {ok, answer} = await ask("/api/setup");
    this.$("#setup-error").textContent = ok ? "" : answer.error;
    if (!ok) { this.offer = null; return; }
    this.offer = answer;
    const select = this.$("#setup-game");
    select.replaceChildren(...answer.games.map((g) => new Option(g.title, g.name)));
    select.value = answer.game;
    this.showGame();
  }

  game() { return this.offer.games.find((g) => g.name === this.$("#setup-game").value); }

  showGame() {
    const g = this.game();
    this.$("#setup-option-list").replaceChildren(...g.options.map((o) => this.optionField(o)));
    this.$("#setup-options").hidden = !g.options.length;
    const players = this.$("#setup-players");
    players.replaceChildren();
    for (let n = g.min_players; n <= g.max_players; n++) players.append(new Option(String(n), String(n)));
    players.value = String(g.players);
    this.$("#setup-players-row").hidden = g.min_players === g.max_players;
    this.showSeats();
  }

  optionField(option) {
    const row = document.createElement("p");
    row.className = "option";
    const id = `option-${option.name}`;
    const label = document.createElement("label");
    label.htmlFor = id;
    label.textContent = option.label;
    let input;
    if (option.type === "bool") {
      input = document.createElement("input");
      input.type = "checkbox";
      input.checked = option.value;
    } else if (option.choices) {
      input = document.createElement("select");
      option.choices.forEach((choice, i) => input.append(new Option(String(choice), String(i))));
      input.value = String(option.choices.indexOf(option.value));
    } else {
      input = document.createElement("input");
      input.type = option.type === "int" ? "number" : "text";
      if (option.type === "int") input.min = "1";
      input.value = String(option.value);
    }
    input.id = id;
    input.dataset.option = option.name;
    const help = document.createElement("small");
    help.id = `${id}-help`;
    help.textContent = option.help;
    input.setAttribute("aria-describedby", help.id);
    row.append(label, " ", input, " ", help);
    return row;
  }

  showSeats() {
    const g = this.game();
    const count = Number(this.$("#setup-players").value);
    const typed = [...this.root.querySelectorAll("#setup-seats fieldset")].map((box) => this.seatValue(box));
    this.$("#setup-seats").replaceChildren(...Array.from({length: count}, (_, i) => this.seatField(g, i, typed[i] || g.seats[i])));
  }

  seatField(g, i, seat) {
    const box = document.createElement("fieldset");
    box.className = "seat";
    const legend = document.createElement("legend");
    const position = g.positions[i];
    legend.textContent = `Seat ${i + 1}${position ? ` (${position})` : ""}`;
    box.append(legend);
    const field = (label, input, name) => {
      const id = `seat-${i}-${name}`;
      input.id = id;
      input.dataset.field = name;
      const l = document.createElement("label");
      l.htmlFor = id;
      l.textContent = label;
      const span = document.createElement("span");
      span.className = `seat-${name}`;
      span.append(l, " ", input);
      box.append(span, " ");
      return span;
    };
    const name = document.createElement("input");
    name.type = "text"; name.maxLength = 16; name.autocomplete = "off"; name.value = seat.name;
    field("Name", name, "name");
    if (position || g.remote) {
      const kind = document.createElement("select");
      kind.append(new Option("a person", "person"));
      if (position) kind.append(new Option("a bot (the table plays it)", "bot"));
      if (g.remote) kind.append(new Option(`a person at table ${g.remote}`, "remote"));
      kind.value = seat.bot && position ? "bot" : seat.remote && g.remote ? "remote" : "person";
      field("Played by", kind, "kind");
    }
    if (position) {
      const kind = box.querySelector('[data-field="kind"]');
      const strength = document.createElement("select");
      g.strategies.forEach((s, k) => strength.append(new Option(g.strengths[k], s)));
      strength.value = seat.strategy || g.strategies[0];
      const row = field("Strength", strength, "strategy");
      row.hidden = !seat.bot;
      const botName = `${position[0].toUpperCase()}${position.slice(1)} bot`;
      let personName = seat.bot ? `P${i + 1}` : seat.name; // a bot is named after its rack, a name typed is kept
      name.addEventListener("input", () => { if (kind.value === "person") personName = name.value; });
      kind.addEventListener("change", () => {
        row.hidden = kind.value !== "bot";
        if (kind.value === "bot" && (name.value === personName || !name.value.trim())) name.value = botName;
        if (kind.value === "person" && name.value === botName) name.value = personName;
      });
    }
    return box;
  }

  seatValue(box) {
    const get = (name) => box.querySelector(`[data-field="${name}"]`);
    const kind = get("kind") ? get("kind").value : "person";
    const bot = kind === "bot";
    return {name: get("name").value, bot, remote: kind === "remote", strategy: bot ? get("strategy").value : ""};
  }

  async start() {
    const g = this.game();
    const options = {};
    for (const input of this.root.querySelectorAll("#setup-option-list [data-option]")) {
      const option = g.options.find((o) => o.name === input.dataset.option);
      if (option.type === "bool") options[option.name] = input.checked;
      else if (option.choices) options[option.name] = option.choices[Number(input.value)];
      else options[option.name] = option.type === "int" ? Number(input.value) : input.value;
    }
    const seats = [...this.root.querySelectorAll("#setup-seats fieldset")].map((box) => this.seatValue(box))
      .map((seat) => ({name: seat.name, kind: seat.bot ? "bot" : seat.remote ? "remote" : "person", strategy: seat.strategy}));
    const {ok, answer} = await ask("/api/setup", {game: g.name, options, seats}); // the match starts: the form goes
    this.$("#setup-error").textContent = ok ? "" : answer.error;
  }
}
