// What the page says of the Screen, in words: the prompt line, the OLED's text alternative, a
// cell's name. Nothing here is worked out from the match: the Screen says it, the page words it.

export function promptOf(screen) {
  // {title, text}: the prompt a screen shows (a menu's question; the match's end; in play, the turn
  // of the person to move: the OLED's other notes stay on the OLED)
  if (!screen.kind || (screen.kind === "play" && !screen.instruction)) return {title: "", text: ""};
  if (screen.kind === "menu") return {title: screen.game ? "Menu" : "", text: screen.menu ? screen.menu.title : ""};
  if (screen.kind === "over") return {title: "Match over", text: screen.title};
  return {title: screen.title, text: screen.text};
}

export function menuText(menu) {
  if (menu.type === "list") return `${menu.title}: ${menu.items[menu.selected]}`;
  if (menu.type === "number") return `${menu.title}: ${menu.value}`;
  if (menu.type === "confirm") return `${menu.title} ${menu.yes ? "Yes" : "No"}`;
  if (menu.type === "name") return `${menu.title}: ${menu.text} (the wheel at ${menu.wheel})`;
  return [menu.title, menu.text].filter(Boolean).join(": ");
}

export function oledText(screen) {
  // the OLED image's text alternative: what it shows, in words
  if (!screen.kind) return "The OLED";
  if (screen.kind === "menu") return `The OLED shows a menu: ${menuText(screen.menu)}`;
  if (screen.kind === "play") return `The OLED: ${screen.turn} to play${screen.text ? `; ${screen.text}` : ""}`;
  return `The OLED: ${[screen.title, screen.text].filter(Boolean).join(": ")}`;
}

export function cellName(layout, cell) {
  // "r4c6" for a playing cell, as prompts name them; the scan pad by its side
  const pad = layout.pad.findIndex(([c]) => c === cell);
  return pad >= 0 ? `the scan pad (${pad ? "right" : "left"})` : `r${Math.floor(cell / layout.columns)}c${cell % layout.columns}`;
}
