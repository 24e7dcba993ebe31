// The table page: the screen the table shows, pushed over a WebSocket, rendered as it comes (the
// page decides nothing about the match: whose turn, what to do, which cells to mark and which
// actions apply all come from the server); tiles dragged on the tray (or picked up from a list and
// laid with the keyboard), the setup form, the match's controls, the three buttons and faults.
// Every request goes through send(): a change is a POST of JSON (from another machine the login
// cookie carries the token).

import {drawLights, renderLegend} from "./lights.js";

const $ = (sel) => document.querySelector(sel);
const DIRS = [[0, 1], [1, 0], [0, -1], [-1, 0]]; // right, down, left, up: from the first half to the second
const ARROWS = ["→", "↓", "←", "↑"];
const WAYS = ["to the right", "downwards", "to the left", "upwards"];
let state = null;
let controls = false;
let drag = null;
let waiting = null; // a state that arrived during a drag
let held = null; // a tile picked up with the keyboard: {tile, from, label}
const offDir = {}; // how each tile off the tray lies: an index into DIRS

// --- the one way to the server -------------------------------------------------------------------

function send(path, body) {
  if (body === undefined) return fetch(path, {headers: {Accept: "application/json"}});
  return fetch(path, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
}

async function ask(path, body, where = "#error") {
  // the answer as JSON, its error said at `where`; null when refused
  const response = await send(path, body).catch((error) => ({ok: false, status: 0, json: async () => ({error: String(error)})}));
  const answer = await response.json().catch(() => ({error: `HTTP ${response.status}`}));
  if (where) $(where).textContent = response.ok ? "" : answer.error;
  return response.ok ? answer : null;
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws`);
  ws.onopen = () => { $("#connection").textContent = "live"; $("#connection").className = "online"; };
  ws.onmessage = (event) => {
    const msg = JSON.parse(event.data);
    if (!("layout" in msg)) { controls = msg.controls; $("#login").hidden = !msg.login; if (state) render(state); return; }
    if (drag) waiting = msg; else render(msg);
  };
  ws.onclose = () => {
    $("#connection").textContent = "offline"; $("#connection").className = "offline";
    setTimeout(connect, 1000);
  };
}

// --- rendering the state ----------------------------------------------------------------------

let shown = {base: null, overlay: null, oled: null, offTray: null, match: null};

function drawOverlay() {
  const group = $("#tray g.overlay");
  if (group && state.overlay !== shown.overlay) { group.innerHTML = state.overlay; shown.overlay = state.overlay; }
  drawLights($("#tray svg"), state.lights, state.layout);
  renderLegend($("#lights-legend"), state.lights);
}

function render(s) {
  state = s;
  const screen = s.screen || {};
  const usable = controls && s.virtual;
  $("#repairs").hidden = !s.repairs.length;
  $("#repairs").textContent = s.repairs.join(" ");
  if (s.base !== shown.base) { // the cells and zones: fetched once per game
    shown.base = s.base; shown.overlay = null;
    send(s.base).then((r) => r.text()).then((picture) => {
      if (shown.base !== s.base) return; // another game meanwhile
      $("#tray").innerHTML = picture.replace("</svg>", '<g class="overlay"></g></svg>');
      shown.overlay = null;
      drawOverlay();
    }).catch(() => { if (shown.base === s.base) shown.base = null; }); // the next update tries again
  }
  drawOverlay();
  if (s.oled && s.oled !== shown.oled) { $("#oled").src = s.oled; shown.oled = s.oled; }
  $("#oled").alt = oledText(screen, s);
  $("#game").textContent = s.title ? `${s.title}, match ${s.match}` : "choosing a match";
  $("#turn").textContent = s.turn ? `${s.turn} to play` : "";
  $("#warning").textContent = s.warning || "";
  $("#prompt-title").textContent = s.prompt_title || "";
  $("#prompt").textContent = s.prompt || "";
  $("#prompt-box").className = s.problem ? "problem" : "";
  $("#target").textContent = s.target ? `playing to ${s.target}` : "";
  $("#last").textContent = s.last_text ? `last: ${s.last_text}` : "";
  $("#last").title = s.last ? `${s.last.who} ${s.last.what}` : ""; // the notation, for those who read it
  $("#scores").hidden = !s.scores.length;
  const body = $("#scores tbody");
  body.replaceChildren(...s.scores.map((side) => {
    const row = document.createElement("tr");
    for (const text of [side.name, String(side.points)]) {
      const cell = document.createElement("td");
      cell.textContent = text;
      row.append(cell);
    }
    return row;
  }));
  for (const el of document.querySelectorAll(".virtual-only")) el.hidden = !usable;
  $("#buttons").hidden = !controls;
  $("#actions").hidden = !controls;
  if (s.match !== shown.match) { shown.match = s.match; resetMatch(); }
  renderMenu(screen.menu);
  renderActions(screen.actions || []);
  renderSetup(screen.menu && "stage" in screen.menu);
  renderTrayList(s);
  const offTray = s.off_tray.join(" ");
  if (offTray !== shown.offTray) { renderOffTray(s.off_tray); shown.offTray = offTray; }
  $("#act-clear").disabled = !usable || !s.clearable;
  sound.hear(screen.alarms || 0, s.match);
  const f = s.faults;
  $("#fault-state").textContent = [f.unplugged ? "unplugged" : "", f.dead.length ? `dead readers: ${f.dead.join(", ")}` : "",
    Object.keys(f.flicker).length ? `flickering: ${Object.keys(f.flicker).join(", ")}` : "", f.noise ? `noise ${f.noise}` : ""]
    .filter(Boolean).join("; ");
  document.body.dataset.moves = s.moves;
  document.body.dataset.mode = s.mode;
}

function oledText(screen, s) {
  // the OLED image's text alternative: what it shows, in words
  if (!screen.kind) return "The OLED";
  if (screen.kind === "menu") return `The OLED shows a menu: ${menuText(screen.menu)}`;
  if (screen.kind === "play") return `The OLED: ${s.turn} to play${screen.text ? `; ${screen.text}` : ""}`;
  return `The OLED: ${[screen.title, screen.text].filter(Boolean).join(": ")}`;
}

function menuText(menu) {
  if (menu.type === "list") return `${menu.title}: ${menu.items[menu.selected]}`;
  if (menu.type === "number") return `${menu.title}: ${menu.value}`;
  if (menu.type === "confirm") return `${menu.title} ${menu.yes ? "Yes" : "No"}`;
  if (menu.type === "name") return `${menu.title}: ${menu.text} (the wheel at ${menu.wheel})`;
  return [menu.title, menu.text].filter(Boolean).join(": ");
}

function renderMenu(menu) {
  // the menu on the OLED, its question and its answers, in text
  $("#menu").hidden = !menu;
  if (!menu) return;
  $("#menu-title").textContent = `On the OLED: ${menu.title}`;
  let items = [];
  if (menu.type === "list") items = menu.items.map((item, i) => [item, i === menu.selected]);
  else if (menu.type === "confirm") items = [["No", !menu.yes], ["Yes", menu.yes]];
  else if (menu.type === "number") items = [[`${menu.value} (from ${menu.low} to ${menu.high})`, true]];
  else if (menu.type === "name") items = [[`${menu.text}, the wheel at ${menu.wheel}`, true]];
  else if (menu.text) items = [[menu.text, false]];
  $("#menu-items").replaceChildren(...items.map(([text, current]) => {
    const li = document.createElement("li");
    li.textContent = text;
    if (current) { li.setAttribute("aria-current", "true"); li.className = "current"; }
    return li;
  }));
}

// --- the match's controls -------------------------------------------------------------------

const moveButtons = new Map(); // label -> button, kept (disabled) once a game has offered the move

function resetMatch() {
  moveButtons.clear();
  $("#moves").replaceChildren();
  putDown();
}

function renderActions(offered) {
  for (const button of document.querySelectorAll("#actions [data-action]")) {
    const action = offered.find((a) => a.action === button.dataset.action);
    button.disabled = !controls || !action;
    button.action = action;
    if (button.dataset.action === "take-back") button.textContent = action ? action.label : "Take back";
  }
  for (const action of offered.filter((a) => a.action === "move")) {
    if (moveButtons.has(action.label)) continue;
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = action.label;
    button.addEventListener("click", () => act(button.action));
    moveButtons.set(action.label, button);
    $("#moves").append(button, " ");
  }
  for (const [label, button] of moveButtons) {
    button.action = offered.find((a) => a.action === "move" && a.label === label);
    button.disabled = !controls || !button.action;
  }
}

async function act(action) {
  if (!action || (action.ask && !(await confirmed(action.ask)))) return;
  await ask("/api/action", {action: action.action, move: action.move});
}

for (const button of document.querySelectorAll("#actions [data-action]")) {
  button.addEventListener("click", () => act(button.action));
}

$("#act-clear").addEventListener("click", async () => {
  if (await confirmed("Take every tile off the tray?")) await ask("/api/tray", {action: "clear"});
});

function confirmed(question) {
  // a yes/no question in a modal dialog (it starts on No)
  const dialog = $("#confirm");
  $("#confirm-question").textContent = question;
  dialog.returnValue = "no";
  dialog.showModal();
  $("#confirm-no").focus();
  return new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), {once: true}));
}

// --- sound: the buzzer, mirrored ----------------------------------------------------------------

const sound = {
  context: null, on: false, alarms: null, match: null,
  toggle() {
    if (!this.context) this.context = new AudioContext(); // a click is what lets a page make sound
    this.on = !this.on;
    if (this.on) this.context.resume();
    const button = $("#act-sound");
    button.setAttribute("aria-pressed", String(this.on));
    button.textContent = this.on ? "Sound on" : "Sound off";
  },
  hear(alarms, match) {
    // the buzzer sounded once for every alarm the table counts: beep as the count grows
    if (this.match === match && this.alarms !== null && alarms > this.alarms && this.on) this.beep();
    this.alarms = alarms; this.match = match;
  },
  beep() {
    const now = this.context.currentTime;
    const tone = this.context.createOscillator(), gain = this.context.createGain();
    tone.frequency.value = 2300; // about a piezo buzzer's
    gain.gain.setValueAtTime(0.15, now);
    gain.gain.exponentialRampToValueAtTime(0.001, now + 0.25);
    tone.connect(gain).connect(this.context.destination);
    tone.start(now);
    tone.stop(now + 0.25);
  },
};
$("#act-sound").addEventListener("click", () => sound.toggle());

// --- the setup form ---------------------------------------------------------------------------

let offer = null; // what the setup offers (GET /api/setup), while it is open

async function renderSetup(open) {
  $("#setup").hidden = !(open && controls);
  if (!open || !controls) { offer = null; return; }
  if (offer) return;
  offer = {loading: true};
  const got = await ask("/api/setup", undefined, "#setup-error");
  if (!got) { offer = null; return; }
  offer = got;
  const select = $("#setup-game");
  select.replaceChildren(...offer.games.map((g) => new Option(g.title, g.name)));
  select.value = offer.game;
  showGame();
}

function game() { return offer.games.find((g) => g.name === $("#setup-game").value); }

function showGame() {
  const g = game();
  $("#setup-option-list").replaceChildren(...g.options.map(optionField));
  $("#setup-options").hidden = !g.options.length;
  const players = $("#setup-players");
  players.replaceChildren();
  for (let n = g.min_players; n <= g.max_players; n++) players.append(new Option(String(n), String(n)));
  players.value = String(g.players);
  $("#setup-players-row").hidden = g.min_players === g.max_players;
  showSeats();
}

function optionField(option) {
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

function showSeats() {
  const g = game();
  const count = Number($("#setup-players").value);
  const typed = [...document.querySelectorAll("#setup-seats fieldset")].map(seatValue);
  $("#setup-seats").replaceChildren(...Array.from({length: count}, (_, i) => seatField(g, i, typed[i] || g.seats[i])));
}

function seatField(g, i, seat) {
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
    g.strategies.forEach((s, k) => strength.append(new Option(k ? s : `${s} (the game's own)`, s)));
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

function seatValue(box) {
  const get = (name) => box.querySelector(`[data-field="${name}"]`);
  const kind = get("kind") ? get("kind").value : "person";
  const bot = kind === "bot";
  return {name: get("name").value, bot, remote: kind === "remote", strategy: bot ? get("strategy").value : ""};
}

$("#setup-game").addEventListener("change", showGame);
$("#setup-players").addEventListener("change", showSeats);
$("#setup-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const g = game();
  const options = {};
  for (const input of document.querySelectorAll("#setup-option-list [data-option]")) {
    const option = g.options.find((o) => o.name === input.dataset.option);
    if (option.type === "bool") options[option.name] = input.checked;
    else if (option.choices) options[option.name] = option.choices[Number(input.value)];
    else options[option.name] = option.type === "int" ? Number(input.value) : input.value;
  }
  const seats = [...document.querySelectorAll("#setup-seats fieldset")].map(seatValue)
    .map((seat) => ({name: seat.name, kind: seat.bot ? "bot" : seat.remote ? "remote" : "person",
      strategy: seat.strategy}));
  await ask("/api/setup", {game: g.name, options, seats}, "#setup-error"); // the match starts: the form goes
});

// --- the tray as text, the tiles off the tray -------------------------------------------------------

function label(cell) {
  // "r4c6" for a playing cell, as prompts name them
  const L = state.layout;
  const pad = L.pad.findIndex(([c]) => c === cell);
  return pad >= 0 ? `the scan pad (${pad ? "right" : "left"})` : `r${Math.floor(cell / L.columns)}c${cell % L.columns}`;
}

function renderTrayList(s) {
  const marked = new Set(s.cells);
  const usable = controls && s.virtual;
  const items = s.tray.map((t) => ({tile: t.tile, from: "tray", text: t.text + (t.cells.some((c) => marked.has(c)) ? " (marked)" : "")}));
  if (s.pad) items.push({tile: s.pad, from: "pad", text: `${s.pad} held over the scan pad`});
  const key = JSON.stringify([items, usable]);
  if (key === shown.trayList) return;
  shown.trayList = key;
  const list = $("#tray-list");
  if (!items.length) {
    const li = document.createElement("li");
    li.textContent = "no tile";
    list.replaceChildren(li);
    return;
  }
  list.replaceChildren(...items.map((item) => {
    const li = document.createElement("li");
    if (usable) {
      const button = document.createElement("button");
      button.type = "button";
      button.className = "tray-item";
      button.textContent = item.text;
      button.addEventListener("click", () => pickUp(item.tile, item.from, item.text.replace(/ \(marked\)$/, "")));
      li.append(button);
    } else {
      li.textContent = item.text;
    }
    return li;
  }));
}

function renderOffTray(tiles) {
  $("#off-tray").replaceChildren(...tiles.map((tile) => {
    const dir = offDir[tile] || 0;
    const [a, b] = tile.split("-");
    const li = document.createElement("li");
    const el = document.createElement("button");
    el.type = "button";
    el.className = `off-tile dir-${dir}`;
    el.dataset.tile = tile;
    el.dataset.dir = String(dir);
    el.title = `${tile}: the ${a} half first, then ${ARROWS[dir]} the ${b} half (the ${b} ${WAYS[dir]} of the ${a})`;
    for (const [i, pips] of [[0, a], [1, b]]) {
      const half = document.createElement("span");
      half.className = "half";
      half.dataset.half = String(i);
      half.textContent = pips;
      if (i) { const dash = document.createElement("span"); dash.className = "visually-hidden"; dash.textContent = "-"; el.append(dash); }
      el.append(half);
    }
    el.addEventListener("click", (event) => { if (event.detail === 0) pickUp(tile, "off", tile); }); // a key, not a pointer
    li.append(el);
    return li;
  }));
}

// --- moving a tile: one way for a drag, a click and the keyboard ------------------------------------

async function move(tile, from, to) {
  // `to`: {cells: [cell of the tile's first-named half, the other's]}, "pad" or "off"
  if (to === "pad") {
    if (from === "tray") return await ask("/api/tray", {action: "remove", tile}) && ask("/api/tray", {action: "pad", tile});
    return from === "off" ? ask("/api/tray", {action: "pad", tile}) : null;
  }
  if (to === "off") return from === "off" ? null : ask("/api/tray", {action: from === "pad" ? "unpad" : "remove", tile});
  if (from === "off") return ask("/api/tray", {action: "place", tile, cells: to.cells});
  if (from === "tray") return ask("/api/tray", {action: "slide", tile, cells: to.cells});
  return await ask("/api/tray", {action: "unpad", tile}) && ask("/api/tray", {action: "place", tile, cells: to.cells});
}

async function targets(tile) {
  const got = await ask(`/api/targets?tile=${encodeURIComponent(tile)}`, undefined, null);
  return got ? got.targets : [];
}

async function pickUp(tile, from, name) {
  // the keyboard's drag: the tile is held, and the places it may go are buttons
  held = {tile, from};
  const choices = [];
  const choice = (text, to) => {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = text;
    button.addEventListener("click", async () => { putDown(); await move(tile, from, to); });
    choices.push(button);
  };
  $("#held").hidden = false;
  $("#held-title").textContent = `Holding ${name}: where does it go?`;
  $("#held-choices").replaceChildren();
  const [a, b] = tile.split("-");
  const found = await targets(tile);
  if (held === null || held.tile !== tile) return; // put down, or another picked up, meanwhile
  markLegal(found.flat());
  for (const cells of found) choice(`the ${a} on ${label(cells[0])}, the ${b} on ${label(cells[1])}`, {cells});
  const taken = new Set(state.tray.flatMap((t) => t.cells));
  for (const rack of ((state.screen || {}).game || {racks: []}).racks) {
    rack.slots.forEach((cells, k) => {
      if (!cells.some((c) => taken.has(c))) choice(`into slot ${k + 1} of ${rack.seat}'s rack`, {cells});
    });
  }
  if (from !== "pad") choice("over the scan pad", "pad");
  if (from !== "off") choice("off the tray", "off");
  const form = document.createElement("form");
  form.className = "lay-at";
  form.innerHTML = '<label>the first half on <input name="cell" size="6" placeholder="r4c6" required></label> ' +
    '<label>the other <select name="dir"></select></label> <button>lay it</button>';
  WAYS.forEach((way, i) => form.dir.append(new Option(way, String(i))));
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    const m = /^r(\d+)c(\d+)$/.exec(form.cell.value.trim().toLowerCase());
    const L = state.layout;
    const [dr, dc] = DIRS[Number(form.dir.value)];
    if (!m || Number(m[1]) + dr < 0 || Number(m[1]) + dr >= L.rows || Number(m[2]) + dc < 0 || Number(m[2]) + dc >= L.columns
        || Number(m[1]) >= L.rows || Number(m[2]) >= L.columns) {
      $("#error").textContent = `${form.cell.value} is not a cell for the first half (r0c0 to r${L.rows - 1}c${L.columns - 1}, the other half on the tray too)`;
      return;
    }
    const first = Number(m[1]) * L.columns + Number(m[2]);
    putDown();
    await move(tile, from, {cells: [first, first + dr * L.columns + dc]});
  });
  const cancel = document.createElement("button");
  cancel.type = "button";
  cancel.textContent = "put it down where it was";
  cancel.addEventListener("click", putDown);
  $("#held-choices").replaceChildren(...choices, form, cancel);
  (choices[0] || form.cell).focus();
}

function putDown() {
  held = null;
  markLegal([]);
  $("#held").hidden = true;
  $("#held-choices").replaceChildren();
}

// --- dragging -------------------------------------------------------------------------------

function cellAt(x, y) {
  const svg = $("#tray svg");
  if (!svg || !state) return null;
  const pt = svg.createSVGPoint();
  pt.x = x; pt.y = y;
  const p = pt.matrixTransform(svg.getScreenCTM().inverse());
  const L = state.layout;
  for (const [cell, px, py] of L.pad) {
    if (p.x >= px && p.x < px + L.pitch && p.y >= py && p.y < py + L.pitch) return {pad: true, cell};
  }
  const col = Math.floor((p.x - L.x0) / L.pitch), row = Math.floor((p.y - L.y0) / L.pitch);
  if (col >= 0 && col < L.columns && row >= 0 && row < L.rows) return {row, col, cell: row * L.columns + col};
  const inside = p.x >= 0 && p.y >= 0 && p.x <= L.width && p.y <= L.height;
  return inside ? {outside: false} : {outside: true};
}

function landing(at) {
  // the cells [first half, second half] if the grabbed half lands on `at`
  if (!at || at.cell === undefined || at.pad) return null;
  const [dr, dc] = DIRS[drag.dir];
  const sign = drag.half === 0 ? 1 : -1;
  const r = at.row + sign * dr, c = at.col + sign * dc;
  const L = state.layout;
  if (r < 0 || r >= L.rows || c < 0 || c >= L.columns) return null;
  const other = r * L.columns + c;
  return drag.half === 0 ? [at.cell, other] : [other, at.cell];
}

function mark(cells, kind = "target") {
  for (const el of document.querySelectorAll(`#tray rect.cell.${kind}`)) el.classList.remove(kind);
  for (const cell of cells || []) document.querySelector(`#tray rect.cell[data-cell="${cell}"]`)?.classList.add(kind);
}

function markLegal(cells) { mark(cells, "legal"); }

function dirOf(first, second) {
  const L = state.layout;
  const dr = Math.floor(second / L.columns) - Math.floor(first / L.columns);
  const dc = (second % L.columns) - (first % L.columns);
  return DIRS.findIndex(([r, c]) => r === dr && c === dc);
}

function startDrag(event) {
  if (!controls || !state || !state.virtual || event.button !== 0) return;
  const offTile = event.target.closest(".off-tile");
  const trayTile = event.target.closest("#tray g.tile:not(.ghost)");
  if (!offTile && !trayTile) return;
  event.preventDefault();
  if (offTile) {
    const half = Number(event.target.closest(".half")?.dataset.half || 0);
    drag = {tile: offTile.dataset.tile, from: "off", half, dir: Number(offTile.dataset.dir), el: offTile};
  } else {
    const [a, b] = trayTile.dataset.tile.split("-");
    const cells = trayTile.dataset.cells.split(",").map(Number);
    const at = cellAt(event.clientX, event.clientY);
    const half = at && at.cell === cells[1] ? 1 : 0;
    const onPad = state.layout.pad.some(([cell]) => cell === cells[0]);
    drag = {tile: `${a}-${b}`, from: onPad ? "pad" : "tray", half, cells, dir: onPad ? 0 : dirOf(cells[0], cells[1]), el: trayTile};
  }
  drag.x = event.clientX; drag.y = event.clientY; drag.moved = false;
  drag.el.classList.add("dragging");
  document.body.classList.add("dragging");
  const grabbed = drag;
  targets(grabbed.tile).then((cells) => { if (drag === grabbed) markLegal(cells.flat()); }); // where it may go, while held
}

function moveDrag(event) {
  if (!drag) return;
  if (Math.abs(event.clientX - drag.x) + Math.abs(event.clientY - drag.y) > 4) drag.moved = true;
  drag.lastX = event.clientX; drag.lastY = event.clientY;
  const at = cellAt(event.clientX, event.clientY);
  mark(at && at.pad ? state.layout.pad.map(([c]) => c) : landing(at));
}

function turn(dir) { return (dir + 1) % 4; }

async function endDrag(event) {
  if (!drag) return;
  const d = drag;
  const at = cellAt(event.clientX, event.clientY);
  const cells = landing(at);
  mark([]);
  markLegal([]);
  d.el.classList.remove("dragging");
  document.body.classList.remove("dragging");
  drag = null;
  if (!d.moved) { // a click turns the tile
    if (d.from === "off") { offDir[d.tile] = turn(d.dir); renderOffTray(state.off_tray); $(`.off-tile[data-tile="${d.tile}"]`)?.focus(); }
    else if (d.from === "tray") {
      drag = d; d.dir = turn(d.dir);
      const grabbed = d.cells[d.half];
      const L = state.layout;
      const spun = landing({row: Math.floor(grabbed / L.columns), col: grabbed % L.columns, cell: grabbed});
      drag = null;
      if (spun) await move(d.tile, "tray", {cells: spun});
      else $("#error").textContent = `${d.tile} cannot turn there: it would leave the tray`;
    }
  } else if (at && at.pad) {
    await move(d.tile, d.from, "pad");
  } else if (cells) {
    await move(d.tile, d.from, {cells});
  } else if (at && at.outside) {
    await move(d.tile, d.from, "off");
  }
  if (waiting) { const s = waiting; waiting = null; render(s); }
}

document.addEventListener("pointerdown", startDrag);
document.addEventListener("pointermove", moveDrag);
document.addEventListener("pointerup", endDrag);

// --- the three buttons, and their keys -------------------------------------------------------------

const KEYS = {w: "up", k: "up", ArrowUp: "up", s: "down", j: "down", ArrowDown: "down",
  Enter: "select", " ": "select", m: "long-select"};

document.addEventListener("keydown", (event) => {
  if (!controls || event.ctrlKey || event.altKey || event.metaKey) return;
  if (event.key === "r" && drag) {
    drag.dir = turn(drag.dir);
    drag.moved = true; // turned while held: dropped where it is, turned, not a click
    mark(landing(cellAt(drag.lastX ?? drag.x, drag.lastY ?? drag.y)));
    event.preventDefault();
    return;
  }
  // a field takes every key, a button or a link its Enter and Space; Tab always moves on
  if (event.target.closest("input, select, textarea, dialog")) return;
  if ((event.key === "Enter" || event.key === " ") && event.target.closest("button, a, summary")) return;
  if (KEYS[event.key] && !event.repeat) {
    event.preventDefault();
    ask("/api/button", {button: KEYS[event.key]});
  }
});

for (const button of document.querySelectorAll("[data-button]")) {
  button.addEventListener("click", () => ask("/api/button", {button: button.dataset.button}));
}

const faultCell = () => Number($("#fault-cell").value);
const faults = {
  "#fault-unplug": () => ({fault: "unplug"}), "#fault-replug": () => ({fault: "replug"}),
  "#fault-dead": () => ({fault: "dead", cell: faultCell()}), "#fault-alive": () => ({fault: "alive", cell: faultCell()}),
  "#fault-flicker": () => ({fault: "flicker", cell: faultCell(), probability: Number($("#fault-p").value)}),
  "#fault-noise-on": () => ({fault: "noise", probability: Number($("#fault-noise").value)}),
  "#fault-noise-off": () => ({fault: "noise", probability: 0}),
};
for (const [sel, body] of Object.entries(faults)) $(sel).addEventListener("click", () => ask("/api/fault", body()));

connect();
