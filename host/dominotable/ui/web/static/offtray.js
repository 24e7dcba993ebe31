// What lies off the simulated tray, for the hands that play it: the boneyard and the tiles taken off
// the tray (captured, or set aside) in lists of their own, each tile a button drawn the way it is
// turned (a click turns it), to drag by a half or pick up with Enter.

const ARROWS = ["→", "↓", "←", "↑"];
export const WAYS = ["to the right", "downwards", "to the left", "upwards"];

export class OffTray {
  constructor(lists, pickUp) {
    this.lists = lists; // {boneyard: <ul>, captured: <ul>}
    this.pickUp = pickUp;
    this.turned = new Map(); // tile -> how it lies: an index into DIRS
    this.shown = null;
    this.current = {boneyard: [], captured: []};
  }

  render(s) {
    const captured = new Set(s.captured || []);
    const lists = {boneyard: (s.off_tray || []).filter((t) => !captured.has(t)), captured: [...captured]};
    const key = JSON.stringify(lists);
    if (key === this.shown) return;
    this.shown = key;
    this.current = lists;
    this.draw();
  }

  draw() {
    for (const [name, tiles] of Object.entries(this.current)) this.lists[name].replaceChildren(...tiles.map((t) => this.item(t)));
    this.lists.captured.parentElement.hidden = !this.current.captured.length;
  }

  dir(tile) { return this.turned.get(tile) || 0; }

  turn(tile) {
    this.turned.set(tile, (this.dir(tile) + 1) % 4);
    this.draw();
    this.button(tile)?.focus();
  }

  button(tile) { return document.querySelector(`.off-tile[data-tile="${tile}"]`); }

  buttons() { return [...document.querySelectorAll(".off-tile")]; }

  item(tile) {
    const dir = this.dir(tile);
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
    el.addEventListener("click", (event) => { if (event.detail === 0) this.pickUp({tile, from: "off", name: tile}); }); // a key
    li.append(el);
    return li;
  }
}
