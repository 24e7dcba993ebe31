// The page's hands on the simulated tray: one way to move a tile for a drag, a click and the
// keyboard. A tile is dragged by a half (it lands where the pointer is, drawn with its pips, each
// place it may go outlined apart), turned by a click or `r` while held, or picked up with Enter
// (or by typing its pips, "35" for 3-5) and put where a list of places says. A face-down tile in a
// rack is moved by where it lies, never by its name. A refusal is said beside the prompt and
// outlined where it happened; the tile is then where the table says it is.

import {ask} from "./net.js";
import {DIRS} from "./tray.js";
import {WAYS} from "./offtray.js";
import {cellName} from "./words.js";

const TYPED = 1200; // ms a typed digit waits for the next one

export class Hands {
  constructor(page) {
    this.page = page;
    this.drag = null; // the tile held by the pointer
    this.held = null; // the tile picked up with the keyboard: {tile, at, from, name}
    this.typed = {digits: "", at: 0};
    this.back = null; // where focus goes once the tile is put down: {list, index}
    document.addEventListener("pointerdown", (e) => this.start(e));
    document.addEventListener("pointermove", (e) => this.follow(e));
    document.addEventListener("pointerup", (e) => this.end(e));
  }

  get tray() { return this.page.tray; }

  // --- one way to move a tile ---------------------------------------------------------------------

  async move(item, to, tried = []) {
    // `to`: {cells: [cell of the first-named half, the other's]}, "pad" or "off"; `tried`: the cells to outline if refused
    const named = item.tile ? {tile: item.tile} : {at: item.at};
    const steps = [];
    if (to === "pad") {
      if (item.from === "tray") steps.push({action: "remove", ...named});
      if (item.from !== "pad") steps.push({action: "pad", ...named});
    } else if (to === "off") {
      if (item.from !== "off") steps.push({action: item.from === "pad" ? "unpad" : "remove", ...named});
    } else if (item.from === "pad") {
      steps.push({action: "unpad", ...named}, {action: "place", ...named, cells: to.cells});
    } else {
      steps.push({action: item.from === "off" ? "place" : "slide", ...named, cells: to.cells});
    }
    for (const step of steps) {
      const {ok, answer} = await ask("/api/tray", step);
      if (!ok) { this.page.refuse(answer.error, tried.length ? tried : (to.cells || [])); return false; }
    }
    this.page.refuse("", []);
    return true;
  }

  async targets(tile) {
    // the places a tile may go: [{cells, does}], what laying it there does in words ("" if no more than the tile)
    if (!tile) return [];
    const {ok, answer} = await ask(`/api/targets?tile=${encodeURIComponent(tile)}`);
    if (!ok) return [];
    const [a, b] = tile.split("-");
    const seen = new Set();
    return answer.targets.map((cells, i) => ({cells, does: answer.does[i]})).filter(({cells}) => {
      const key = a === b ? [...cells].sort((x, y) => x - y).join(",") : cells.join(","); // a double's place once
      return !seen.has(key) && seen.add(key);
    });
  }

  showLegal(found) {
    this.tray.mark(found.flatMap((p) => p.cells), "legal");
    this.tray.places(found.map((p) => p.cells));
  }

  clearMarks() {
    this.tray.mark([], "target");
    this.tray.mark([], "legal");
    this.tray.places([]);
    this.tray.preview(null, null);
  }

  // --- the keyboard's drag: picked up, the places it may go are buttons -----------------------------

  async pickUp(item) {
    const s = this.page.state;
    this.held = item;
    const list = item.from === "off" ? ".off-tile" : ".tray-item";
    const here = document.activeElement?.closest?.(list);
    this.back = {list, index: Math.max(0, [...document.querySelectorAll(list)].indexOf(here))};
    const choices = [];
    const choice = (text, to) => {
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = text;
      button.addEventListener("click", async () => { this.putDown(); await this.move(item, to); });
      choices.push(button);
    };
    const box = document.querySelector("#held");
    box.hidden = false;
    document.querySelector("#held-title").textContent = `Holding ${item.name}: where does it go?`;
    document.querySelector("#held-choices").replaceChildren();
    const found = await this.targets(item.tile);
    if (this.held !== item) return; // put down, or another picked up, meanwhile
    this.showLegal(found);
    const name = (cell) => cellName(s.layout, cell);
    const [a, b] = item.tile ? item.tile.split("-") : ["", ""];
    for (const {cells, does} of found) { // each place named by what it does, then where it is
      const where = a === b ? `the ${a}s on ${name(cells[0])} and ${name(cells[1])}` : `the ${a} on ${name(cells[0])}, the ${b} on ${name(cells[1])}`;
      choice(does ? `${does}: ${where}` : where, {cells});
    }
    const taken = new Set(s.tray.flatMap((t) => t.cells));
    for (const rack of (s.screen.game || {racks: []}).racks) {
      rack.slots.forEach((cells, k) => {
        if (!cells.some((c) => taken.has(c))) choice(`into slot ${k + 1} of ${rack.seat}'s rack`, {cells});
      });
    }
    if (item.from !== "pad" && item.tile) choice("over the scan pad", "pad");
    if (item.from !== "off") choice("off the tray", "off");
    choices.push(this.layAt(item), this.cancel());
    document.querySelector("#held-choices").replaceChildren(...choices);
    (choices[0].querySelector?.("input") || choices[0]).focus();
  }

  layAt(item) {
    // any cell typed, the other half one way from it
    const L = this.page.state.layout;
    const form = document.createElement("form");
    form.className = "lay-at";
    const field = (text, input) => { const label = document.createElement("label"); label.append(text, input); return label; };
    const cell = Object.assign(document.createElement("input"), {name: "cell", size: 6, placeholder: "r4c6", required: true});
    const dir = Object.assign(document.createElement("select"), {name: "dir"});
    WAYS.forEach((way, i) => dir.append(new Option(way, String(i))));
    const lay = Object.assign(document.createElement("button"), {textContent: "lay it"});
    form.append(field("the first half on ", cell), " ", field("the other ", dir), " ", lay);
    form.addEventListener("submit", async (event) => {
      event.preventDefault();
      const m = /^r(\d+)c(\d+)$/.exec(cell.value.trim().toLowerCase());
      const [dr, dc] = DIRS[Number(dir.value)];
      const [row, col] = m ? [Number(m[1]), Number(m[2])] : [-1, -1];
      if (!m || row >= L.rows || col >= L.columns || row + dr < 0 || row + dr >= L.rows || col + dc < 0 || col + dc >= L.columns) {
        this.page.refuse(`${cell.value} is not a cell for the first half (r0c0 to r${L.rows - 1}c${L.columns - 1}, the other half on the tray too)`, []);
        return;
      }
      const first = row * L.columns + col;
      this.putDown();
      await this.move(item, {cells: [first, first + dr * L.columns + dc]});
    });
    return form;
  }

  cancel() {
    const button = document.createElement("button");
    button.type = "button";
    button.textContent = "put it down where it was";
    button.addEventListener("click", () => this.putDown());
    return button;
  }

  putDown() {
    this.held = null;
    this.clearMarks();
    document.querySelector("#held").hidden = true;
    document.querySelector("#held-choices").replaceChildren();
  }

  rendered() {
    // after the page shows the table's answer: focus goes on where play goes on (the next tile in the
    // list the last one came from), not back to the page's start
    if (!this.back || this.held) return;
    const active = document.activeElement;
    if (active && active !== document.body && active.isConnected) { this.back = null; return; }
    const all = [...document.querySelectorAll(this.back.list)];
    const next = all[Math.min(this.back.index, all.length - 1)] || document.querySelector(".off-tile, .tray-item");
    if (next) { next.focus(); this.back = null; }
  }

  typeAhead(key) {
    // digits typed outside a field: "35" picks up 3-5 (or 5-3), off the tray or on it
    const now = performance.now();
    this.typed = {digits: (now - this.typed.at < TYPED ? this.typed.digits : "") + key, at: now};
    const digits = this.typed.digits;
    if (digits.length < 2) return;
    this.typed.digits = "";
    const names = [`${digits[0]}-${digits.slice(1)}`, `${digits.slice(1)}-${digits[0]}`];
    const found = names.map((n) => document.querySelector(`.off-tile[data-tile="${n}"], .tray-item[data-tile="${n}"]`)).find(Boolean);
    if (!found) { this.page.refuse(`no tile ${names[0]} to pick up, off the tray or on it`, []); return; }
    found.focus();
    found.click();
  }

  // --- dragging ------------------------------------------------------------------------------------

  start(event) {
    if (!this.page.usable || event.button !== 0) return;
    const offTile = event.target.closest(".off-tile");
    const trayTile = event.target.closest("#tray g.tile:not(.ghost)");
    if (!offTile && !trayTile) return;
    event.preventDefault();
    let d;
    if (offTile) {
      const half = Number(event.target.closest(".half")?.dataset.half || 0);
      d = {tile: offTile.dataset.tile, from: "off", half, dir: Number(offTile.dataset.dir), el: offTile};
    } else {
      const cells = trayTile.dataset.cells.split(",").map(Number);
      const at = this.tray.cellAt(event.clientX, event.clientY);
      const onPad = this.tray.isPad(cells[0]);
      d = {tile: trayTile.dataset.tile || null, at: cells[0], cells, from: onPad ? "pad" : "tray",
        half: at && at.cell === cells[1] ? 1 : 0, dir: onPad ? 0 : this.tray.dirOf(cells[0], cells[1]), el: trayTile};
    }
    d.x = event.clientX; d.y = event.clientY; d.moved = false;
    this.drag = d;
    d.el.classList.add("dragging");
    document.body.classList.add("dragging");
    this.targets(d.tile).then((found) => { if (this.drag === d) this.showLegal(found); }); // where it may go, while held
  }

  follow(event) {
    const d = this.drag;
    if (!d) return;
    if (Math.abs(event.clientX - d.x) + Math.abs(event.clientY - d.y) > 4) d.moved = true;
    d.lastX = event.clientX; d.lastY = event.clientY;
    this.aim();
  }

  aim() {
    const d = this.drag;
    const at = this.tray.cellAt(d.lastX ?? d.x, d.lastY ?? d.y);
    const cells = at && at.pad ? this.page.state.layout.pad.map(([c]) => c) : this.tray.landing(at, d.half, d.dir);
    this.tray.mark(cells, "target");
    this.tray.preview(d.tile, at && at.pad ? null : cells);
  }

  turnHeld() {
    // `r` while dragging: turned a quarter, dropped where it is (not a click)
    if (!this.drag) return false;
    this.drag.dir = (this.drag.dir + 1) % 4;
    this.drag.moved = true;
    this.aim();
    return true;
  }

  async end(event) {
    const d = this.drag;
    if (!d) return;
    const at = this.tray.cellAt(event.clientX, event.clientY);
    const cells = this.tray.landing(at, d.half, d.dir);
    this.clearMarks();
    d.el.classList.remove("dragging");
    document.body.classList.remove("dragging");
    this.drag = null;
    const item = {tile: d.tile, at: d.at, from: d.from};
    if (!d.moved) { // a click turns the tile
      if (d.from === "off") this.page.offTray.turn(d.tile);
      else if (d.from === "tray") await this.turnInPlace(item, d);
    } else if (at && at.pad) {
      if (d.tile) await this.move(item, "pad", this.page.state.layout.pad.map(([c]) => c));
      else this.page.refuse("a face-down tile stays face down: it does not go over the scan pad", [d.at]);
    } else if (cells) {
      await this.move(item, {cells}, cells);
    } else if (at && at.outside) {
      await this.move(item, "off");
    } else if (at && at.cell !== undefined) {
      this.page.refuse(`${d.tile || "the tile"} cannot lie there: its other half would be off the tray`, [at.cell]);
    }
    this.page.dropped();
  }

  async turnInPlace(item, d) {
    const grabbed = d.cells[d.half];
    const spun = this.tray.landing(this.tray.at(grabbed), d.half, (d.dir + 1) % 4);
    if (spun) await this.move(item, {cells: spun}, spun);
    else this.page.refuse(`${d.tile || "the tile"} cannot turn there: it would leave the tray`, d.cells);
  }
}
