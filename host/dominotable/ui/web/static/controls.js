// The match's controls: the actions the Screen offers (the in-game menu's list: New match, the
// game's own button moves, Take back, Hint, Resign), each enabled exactly when offered; Clear tray;
// the table's three buttons and their keys; the faults of the simulated tray. Resign and New match
// ask once more, in a dialog that starts on No.

import {ask} from "./net.js";

const KEYS = {w: "up", k: "up", ArrowUp: "up", s: "down", j: "down", ArrowDown: "down",
  Enter: "select", " ": "select", m: "long-select"};

export function confirmed(question) {
  const dialog = document.querySelector("#confirm");
  document.querySelector("#confirm-question").textContent = question;
  dialog.returnValue = "no";
  dialog.showModal();
  document.querySelector("#confirm-no").focus();
  return new Promise((resolve) => dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), {once: true}));
}

export class Controls {
  constructor(page) {
    this.page = page;
    this.moves = new Map(); // label -> button, kept in its place (hidden) once a game has offered the move
    for (const button of document.querySelectorAll("#actions [data-action]")) {
      button.addEventListener("click", () => this.act(button.action));
    }
    document.querySelector("#act-clear").addEventListener("click", async () => {
      if (await confirmed("Take every tile off the tray?")) await this.send("/api/tray", {action: "clear"});
    });
    for (const button of document.querySelectorAll("[data-button]")) {
      button.addEventListener("click", () => this.send("/api/button", {button: button.dataset.button}));
    }
    const cell = () => Number(document.querySelector("#fault-cell").value);
    const value = (sel) => Number(document.querySelector(sel).value);
    const faults = {
      "#fault-unplug": () => ({fault: "unplug"}), "#fault-replug": () => ({fault: "replug"}),
      "#fault-dead": () => ({fault: "dead", cell: cell()}), "#fault-alive": () => ({fault: "alive", cell: cell()}),
      "#fault-flicker": () => ({fault: "flicker", cell: cell(), probability: value("#fault-p")}),
      "#fault-noise-on": () => ({fault: "noise", probability: value("#fault-noise")}),
      "#fault-noise-off": () => ({fault: "noise", probability: 0}),
    };
    for (const [sel, body] of Object.entries(faults)) document.querySelector(sel).addEventListener("click", () => this.send("/api/fault", body()));
    document.addEventListener("keydown", (event) => this.key(event));
  }

  async send(path, body) {
    const {ok, answer} = await ask(path, body);
    this.page.refuse(ok ? "" : answer.error, []);
    return ok;
  }

  newMatch() {
    this.moves.clear();
    document.querySelector("#moves").replaceChildren();
  }

  render(screen, live) {
    const offered = screen.actions || [];
    for (const button of document.querySelectorAll("#actions [data-action]")) {
      const action = offered.find((a) => a.action === button.dataset.action);
      button.disabled = !live || !action;
      button.action = action;
      if (button.dataset.action === "take-back") button.textContent = action ? action.label : "Take back";
    }
    for (const action of offered.filter((a) => a.action === "move")) {
      if (this.moves.has(action.label)) continue;
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = action.label;
      button.addEventListener("click", () => this.act(button.action));
      this.moves.set(action.label, button);
      document.querySelector("#moves").append(button, " ");
    }
    for (const [label, button] of this.moves) {
      button.action = offered.find((a) => a.action === "move" && a.label === label);
      button.hidden = !button.action; // a move shows only where it can act (Pass with nothing to pass)
      button.disabled = !live || !button.action;
    }
    for (const button of document.querySelectorAll("#buttons button, #faults button")) button.disabled = !live;
  }

  async act(action) {
    if (!action || (action.ask && !(await confirmed(action.ask)))) return;
    await this.send("/api/action", {action: action.action, move: action.move});
  }

  key(event) {
    if (!this.page.live || event.ctrlKey || event.altKey || event.metaKey) return;
    if (event.key === "r" && this.page.hands.turnHeld()) { event.preventDefault(); return; }
    // a field takes every key, a button or a link its Enter and Space; Tab always moves on
    if (event.target.closest("input, select, textarea, dialog")) return;
    if (/^[0-9]$/.test(event.key) && this.page.usable) { event.preventDefault(); this.page.hands.typeAhead(event.key); return; }
    if ((event.key === "Enter" || event.key === " ") && event.target.closest("button, a, summary")) return;
    if (KEYS[event.key] && !event.repeat) {
      event.preventDefault();
      this.send("/api/button", {button: KEYS[event.key]});
    }
  }
}
