// The tray's lights on the page: each cell the tray lights glows under its tile in the colour the
// tray shows, and the legend says what each colour means. Both come from /api/state's `lights`
// (host/dominotable/ui/lights.py decides them; the page decides nothing).

const SVG = "http://www.w3.org/2000/svg";

function origin(layout, cell) {
  // the top-left corner of a cell, in the tray drawing's millimetres
  const pad = layout.pad.find(([c]) => c === cell);
  if (pad) return [pad[1], pad[2]];
  return [layout.x0 + (cell % layout.columns) * layout.pitch, layout.y0 + Math.floor(cell / layout.columns) * layout.pitch];
}

function element(name, attributes) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, value);
  return node;
}

export function drawLights(svg, lights, layout) {
  // the glows, in a group of their own under the tiles (before the overlay that draws them)
  const overlay = svg && svg.querySelector("g.overlay");
  if (!overlay || !lights) return; // the tray's drawing not loaded yet
  let group = svg.querySelector("g.lights");
  if (!group) {
    group = element("g", {class: "lights", "aria-hidden": "true"});
    overlay.before(group);
  }
  const key = JSON.stringify(lights.cells); // the cells last drawn, to redraw only what changed
  if (key === group.dataset.drawn) return;
  group.dataset.drawn = key;
  const defs = element("defs", {});
  for (const colour of new Set(lights.cells.map((lit) => lit.colour))) {
    const glow = element("radialGradient", {id: `glow-${colour.slice(1)}`});
    glow.append(element("stop", {offset: "0%", "stop-color": colour, "stop-opacity": "0.95"}),
      element("stop", {offset: "100%", "stop-color": colour, "stop-opacity": "0"}));
    defs.append(glow);
  }
  const half = layout.pitch / 2;
  group.replaceChildren(defs, ...lights.cells.map((lit) => {
    const [x, y] = origin(layout, lit.cell);
    return element("circle", {class: `glow ${lit.meaning}`, cx: x + half, cy: y + half, r: layout.pitch * 0.75,
      fill: `url(#glow-${lit.colour.slice(1)})`, "data-cell": lit.cell});
  }));
}

export function renderLegend(list, lights) {
  // one line per colour, and the setting when the lights are dimmed or off
  if (!list || !lights) return;
  const key = JSON.stringify([lights.legend, lights.level]);
  if (list.dataset.key === key) return;
  list.dataset.key = key;
  list.replaceChildren(...lights.legend.map((entry) => {
    const item = document.createElement("li");
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    swatch.style.background = entry.colour;
    item.append(swatch, ` ${entry.name}: ${entry.text}`);
    return item;
  }));
  if (lights.level !== "on") {
    const item = document.createElement("li");
    item.textContent = `The lights are ${lights.level === "off" ? "off" : "dimmed"} (the setup menu's Lights).`;
    list.append(item);
  }
}
