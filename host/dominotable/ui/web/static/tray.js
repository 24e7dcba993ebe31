// The tray drawn: the cells and zones (fetched once per game), the tiles as the table read them (the
// server's overlay, replaced as it changes), and over them what the page's hands show: each place a
// held tile may go outlined apart, the tile itself with its pips where it would land, the cells of a
// refusal. Layers, bottom up: the cells, `lights` (lit cells glow under the tiles), the overlay, the marks;
// `layers` are drawn again with each state and once the cells are fetched (lights.js's glow).

import {send} from "./net.js";

const SVG = "http://www.w3.org/2000/svg";
export const DIRS = [[0, 1], [1, 0], [0, -1], [-1, 0]]; // right, down, left, up: from the first half to the second

function shape(tag, attrs) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attrs)) node.setAttribute(name, value);
  return node;
}

export class TrayPicture {
  constructor(root) {
    this.root = root;
    this.layout = null;
    this.shown = {base: null, overlay: null};
    this.layers = []; // (svg, state) => draws a layer of its own
  }

  render(s) {
    this.layout = s.layout;
    this.state = s;
    if (s.base !== this.shown.base) { // the cells and zones: fetched once per game
      this.shown = {base: s.base, overlay: null};
      send(s.base).then((r) => r.text()).then((picture) => {
        if (this.shown.base !== s.base) return; // another game meanwhile
        this.root.innerHTML = picture.replace("</svg>", '<g class="lights" aria-hidden="true"></g><g class="overlay"></g><g class="marks"></g></svg>');
        this.shown.overlay = null;
        this.drawOverlay(this.state.overlay);
      }).catch(() => { if (this.shown.base === s.base) this.shown.base = null; }); // the next update tries again
    }
    this.drawOverlay(s.overlay);
  }

  drawOverlay(overlay) {
    const group = this.layer("overlay");
    if (!group) return;
    if (overlay !== this.shown.overlay) { group.innerHTML = overlay; this.shown.overlay = overlay; }
    for (const draw of this.layers) draw(this.root.querySelector("svg"), this.state);
  }

  layer(name) { return this.root.querySelector(`svg > g.${name}`); }

  // --- where the pointer is ------------------------------------------------------------------------

  cellAt(x, y) {
    const svg = this.root.querySelector("svg");
    const L = this.layout;
    if (!svg || !L) return null;
    const pt = svg.createSVGPoint();
    pt.x = x; pt.y = y;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    for (const [cell, px, py] of L.pad) {
      if (p.x >= px && p.x < px + L.pitch && p.y >= py && p.y < py + L.pitch) return {pad: true, cell};
    }
    const col = Math.floor((p.x - L.x0) / L.pitch), row = Math.floor((p.y - L.y0) / L.pitch);
    if (col >= 0 && col < L.columns && row >= 0 && row < L.rows) return {row, col, cell: row * L.columns + col};
    const inside = p.x >= 0 && p.y >= 0 && p.x <= L.width && p.y <= L.height;
    return {outside: !inside};
  }

  landing(at, half, dir) {
    // the cells [first half, second half] if the tile's `half` lands on `at`, lying `dir`; null off the grid
    if (!at || at.cell === undefined || at.pad) return null;
    const [dr, dc] = DIRS[dir];
    const sign = half === 0 ? 1 : -1;
    const r = at.row + sign * dr, c = at.col + sign * dc;
    const L = this.layout;
    if (r < 0 || r >= L.rows || c < 0 || c >= L.columns) return null;
    const other = r * L.columns + c;
    return half === 0 ? [at.cell, other] : [other, at.cell];
  }

  at(cell) {
    const L = this.layout;
    return {row: Math.floor(cell / L.columns), col: cell % L.columns, cell};
  }

  dirOf(first, second) {
    const L = this.layout;
    const dr = Math.floor(second / L.columns) - Math.floor(first / L.columns);
    const dc = (second % L.columns) - (first % L.columns);
    return DIRS.findIndex(([r, c]) => r === dr && c === dc);
  }

  isPad(cell) { return this.layout.pad.some(([c]) => c === cell); }

  // --- what the hands show -------------------------------------------------------------------------

  mark(cells, kind) {
    // cells given a class: "target" (where a held tile would land), "legal" (where it may go)
    for (const el of this.root.querySelectorAll(`rect.cell.${kind}`)) el.classList.remove(kind);
    for (const cell of cells || []) this.root.querySelector(`rect.cell[data-cell="${cell}"]`)?.classList.add(kind);
  }

  origin(cell) {
    const L = this.layout;
    const pad = L.pad.find(([c]) => c === cell);
    if (pad) return [pad[1], pad[2]];
    return [L.x0 + (cell % L.columns) * L.pitch, L.y0 + Math.floor(cell / L.columns) * L.pitch];
  }

  box(cells, inset) {
    // the rectangle over both cells of a tile, `inset` in from their edges
    const p = this.layout.pitch;
    const [[xa, ya], [xb, yb]] = cells.map((c) => this.origin(c));
    return {x: Math.min(xa, xb) + inset, y: Math.min(ya, yb) + inset,
      width: Math.abs(xa - xb) + p - 2 * inset, height: Math.abs(ya - yb) + p - 2 * inset};
  }

  marks(kind) {
    // the marks layer's group for one kind, emptied
    const layer = this.layer("marks");
    if (!layer) return null;
    let group = layer.querySelector(`g.${kind}`);
    if (!group) { group = shape("g", {class: kind}); layer.append(group); }
    group.replaceChildren();
    return group;
  }

  places(targets, kind = "places") {
    // each place a held tile may go (or the instruction lays a tile on: kind "told"), outlined apart
    const group = this.marks(kind);
    for (const cells of targets || []) {
      const b = this.box(cells, 0.9);
      group?.append(shape("rect", {class: "place", "data-cells": cells.join(","), rx: 2.5, ...b}));
    }
  }

  told(instruction) {
    // the places the Screen's instruction lays or slides a tile on, each outlined apart (a step's
    // cells name a place two by two, the cell under the first-named half first)
    const L = this.layout, places = [];
    const touch = (a, b) => this.isPad(a) ? this.isPad(b) : Math.abs(a - b) === L.columns || (Math.abs(a - b) === 1
      && Math.floor(a / L.columns) === Math.floor(b / L.columns));
    for (const step of (instruction && instruction.steps) || []) {
      if (step.do !== "lay" && step.do !== "slide") continue;
      for (let i = 0; i + 1 < step.cells.length; i += 2) {
        if (touch(step.cells[i], step.cells[i + 1])) places.push([step.cells[i], step.cells[i + 1]]);
      }
    }
    this.places(places, "told");
  }

  preview(tile, cells) {
    // the held tile drawn with its pips where it would land (its first-named half on cells[0])
    const group = this.marks("preview");
    if (!group || !tile || !cells) return;
    const p = this.layout.pitch;
    const face = this.box(cells, 0.6);
    group.append(shape("rect", {class: "face", rx: 2.5, ...face}));
    tile.split("-").map(Number).forEach((pips, i) => {
      const [x, y] = this.origin(cells[i]);
      for (const [u, v] of this.layout.pips[pips] || []) {
        group.append(shape("circle", {cx: x + u * p, cy: y + v * p, r: p * (pips <= 9 ? 0.075 : 0.06)}));
      }
    });
  }

  refused(cells) {
    // where a refused move was tried: outlined in red until the next move
    const group = this.marks("refused");
    for (const cell of cells || []) {
      if (cell === undefined || cell === null) continue;
      const b = this.box([cell, cell], 0.6);
      group?.append(shape("rect", {class: "refusal", "data-cell": cell, rx: 2, ...b}));
    }
  }
}
