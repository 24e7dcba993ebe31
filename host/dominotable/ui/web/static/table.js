// The table page: state pushed over a WebSocket, tiles dragged on the tray, buttons and faults.
// Every control is a POST of JSON to the API (from another machine the login cookie carries the
// token); the tray and the OLED are redrawn from what the server pushes (the settled board the
// table judged, the frame the display was sent).

const $ = (sel) => document.querySelector(sel);
const DIRS = [[0, 1], [1, 0], [0, -1], [-1, 0]]; // right, down, left, up: from the first half to the second
const ARROWS = ["→", "↓", "←", "↑"];
let state = null;
let controls = false;
let drag = null;
let waiting = null; // a state that arrived during a drag
const rackDir = {};

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

async function post(path, body) {
  const response = await fetch(path, {method: "POST", headers: {"Content-Type": "application/json"}, body: JSON.stringify(body)});
  const answer = await response.json().catch(() => ({error: `HTTP ${response.status}`}));
  $("#error").textContent = response.ok ? "" : answer.error;
  return response.ok;
}

let shown = {base: null, overlay: null, oled: null, rack: null};

function drawOverlay() {
  const group = $("#tray g.overlay");
  if (group && state.overlay !== shown.overlay) { group.innerHTML = state.overlay; shown.overlay = state.overlay; }
}

function render(s) {
  state = s;
  $("#repairs").hidden = !s.repairs.length;
  $("#repairs").textContent = s.repairs.join(" ");
  if (s.base !== shown.base) { // the cells and zones: fetched once per game
    shown.base = s.base; shown.overlay = null;
    fetch(s.base).then((r) => r.text()).then((picture) => {
      if (shown.base !== s.base) return; // another game meanwhile
      $("#tray").innerHTML = picture.replace("</svg>", '<g class="overlay"></g></svg>');
      shown.overlay = null;
      drawOverlay();
    }).catch(() => { if (shown.base === s.base) shown.base = null; }); // the next update tries again
  }
  drawOverlay();
  if (s.oled && s.oled !== shown.oled) { $("#oled").src = s.oled; shown.oled = s.oled; }
  $("#game").textContent = s.title ? `${s.title}, match ${s.match}` : "choosing a match (setup menu)";
  $("#turn").textContent = s.turn ? `${s.turn} to play` : "";
  $("#warning").textContent = s.warning || "";
  $("#prompt-title").textContent = s.prompt_title || "";
  $("#prompt").textContent = s.prompt || "";
  $("#prompt-box").className = s.problem ? "problem" : "";
  $("#target").textContent = s.target ? `playing to ${s.target}` : "";
  $("#last").textContent = s.last_text ? `last: ${s.last_text}` : "";
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
  const usable = controls && s.virtual;
  for (const el of document.querySelectorAll(".controls")) el.hidden = !(usable || (controls && el.id === "buttons"));
  const rack = s.rack.join(" ");
  if (rack !== shown.rack) { renderRack(s.rack); shown.rack = rack; }
  const f = s.faults;
  $("#fault-state").textContent = [f.unplugged ? "unplugged" : "", f.dead.length ? `dead readers: ${f.dead.join(", ")}` : "",
    Object.keys(f.flicker).length ? `flickering: ${Object.keys(f.flicker).join(", ")}` : "", f.noise ? `noise ${f.noise}` : ""]
    .filter(Boolean).join("; ");
  document.body.dataset.moves = s.moves;
  document.body.dataset.mode = s.mode;
}

function renderRack(tiles) {
  $("#rack").replaceChildren(...tiles.map((tile) => {
    const dir = rackDir[tile] || 0;
    const [a, b] = tile.split("-");
    const el = document.createElement("span");
    el.className = `rack-tile dir-${dir}`;
    el.dataset.tile = tile;
    el.dataset.dir = String(dir);
    el.title = `${tile}: the ${a} half first, then ${ARROWS[dir]} the ${b} half`;
    for (const [i, pips] of [[0, a], [1, b]]) {
      const half = document.createElement("span");
      half.className = "half";
      half.dataset.half = String(i);
      half.textContent = pips;
      el.append(half);
    }
    return el;
  }));
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

function mark(cells) {
  for (const el of document.querySelectorAll("#tray rect.cell.target")) el.classList.remove("target");
  for (const cell of cells || []) document.querySelector(`#tray rect.cell[data-cell="${cell}"]`)?.classList.add("target");
}

function dirOf(first, second) {
  const L = state.layout;
  const dr = Math.floor(second / L.columns) - Math.floor(first / L.columns);
  const dc = (second % L.columns) - (first % L.columns);
  return DIRS.findIndex(([r, c]) => r === dr && c === dc);
}

function startDrag(event) {
  if (!controls || !state || !state.virtual || event.button !== 0) return;
  const rackTile = event.target.closest(".rack-tile");
  const trayTile = event.target.closest("#tray g.tile:not(.ghost)");
  if (!rackTile && !trayTile) return;
  event.preventDefault();
  if (rackTile) {
    const half = Number(event.target.closest(".half")?.dataset.half || 0);
    drag = {tile: rackTile.dataset.tile, from: "rack", half, dir: Number(rackTile.dataset.dir), el: rackTile};
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
  d.el.classList.remove("dragging");
  document.body.classList.remove("dragging");
  drag = null;
  if (!d.moved) { // a click turns the tile
    if (d.from === "rack") { rackDir[d.tile] = turn(d.dir); renderRack(state.rack); }
    else if (d.from === "tray") {
      drag = d; d.dir = turn(d.dir);
      const grabbed = d.cells[d.half];
      const L = state.layout;
      const spun = landing({row: Math.floor(grabbed / L.columns), col: grabbed % L.columns, cell: grabbed});
      drag = null;
      if (spun) await post("/api/tray", {action: "slide", tile: d.tile, cells: spun});
      else $("#error").textContent = `${d.tile} cannot turn there: it would leave the tray`;
    }
  } else if (at && at.pad) {
    if (d.from === "tray") await post("/api/tray", {action: "remove", tile: d.tile}) && await post("/api/tray", {action: "pad", tile: d.tile});
    else if (d.from === "rack") await post("/api/tray", {action: "pad", tile: d.tile});
  } else if (cells) {
    if (d.from === "rack") await post("/api/tray", {action: "place", tile: d.tile, cells});
    else if (d.from === "tray") await post("/api/tray", {action: "slide", tile: d.tile, cells});
    else await post("/api/tray", {action: "unpad", tile: d.tile}) && await post("/api/tray", {action: "place", tile: d.tile, cells});
  } else if (at && at.outside && d.from !== "rack") {
    await post("/api/tray", {action: d.from === "pad" ? "unpad" : "remove", tile: d.tile});
  }
  if (waiting) { const s = waiting; waiting = null; render(s); }
}

document.addEventListener("pointerdown", startDrag);
document.addEventListener("pointermove", moveDrag);
document.addEventListener("pointerup", endDrag);

// --- buttons and keys -----------------------------------------------------------------------

const KEYS = {w: "up", k: "up", ArrowUp: "up", s: "down", j: "down", ArrowDown: "down",
  Enter: "select", " ": "select", m: "long-select", Tab: "long-select"};

document.addEventListener("keydown", (event) => {
  if (event.target.closest("input, textarea") || !controls) return;
  if (event.key === "r" && drag) {
    drag.dir = turn(drag.dir);
    drag.moved = true; // turned while held: dropped where it is, turned, not a click
    mark(landing(cellAt(drag.lastX ?? drag.x, drag.lastY ?? drag.y)));
    event.preventDefault();
  } else if (KEYS[event.key] && !event.repeat) {
    event.preventDefault(); // also keeps Enter or Space from clicking a focused page button twice
    post("/api/button", {button: KEYS[event.key]});
  }
});

for (const button of document.querySelectorAll("[data-button]")) {
  button.addEventListener("click", () => post("/api/button", {button: button.dataset.button}));
}

const cell = () => Number($("#fault-cell").value);
const faults = {
  "#fault-unplug": () => ({fault: "unplug"}), "#fault-replug": () => ({fault: "replug"}),
  "#fault-dead": () => ({fault: "dead", cell: cell()}), "#fault-alive": () => ({fault: "alive", cell: cell()}),
  "#fault-flicker": () => ({fault: "flicker", cell: cell(), probability: Number($("#fault-p").value)}),
  "#fault-noise-on": () => ({fault: "noise", probability: Number($("#fault-noise").value)}),
  "#fault-noise-off": () => ({fault: "noise", probability: 0}),
};
for (const [sel, body] of Object.entries(faults)) $(sel).addEventListener("click", () => post("/api/fault", body()));

connect();
