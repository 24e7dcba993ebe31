// The table page: the Screen the table shows and the tray, pushed over a WebSocket and rendered as
// they come. The page decides nothing about the match: whose turn, what to do, which cells to mark
// and which actions apply all come from the Screen. A part that draws the state is a renderer,
// given each state in turn (the tray, the lists, the controls; lights.js adds one).

import {follow} from "./net.js";
import {TrayPicture} from "./tray.js";
import {OffTray} from "./offtray.js";
import {Hands} from "./hands.js";
import {SetupForm} from "./setup.js";
import {Controls} from "./controls.js";
import {Sound} from "./sound.js";
import {oledText, promptOf} from "./words.js";
import {linkRules} from "./rules.js";
import {drawLights, renderLegend} from "./lights.js";

const $ = (sel) => document.querySelector(sel);

export class TablePage {
  constructor() {
    this.state = null;
    this.controls = false; // this browser may drive the table (the server's hello says)
    this.connected = false;
    this.waiting = null; // a state that came during a drag
    this.shown = {oled: null, match: undefined, trayList: null};
    this.tray = new TrayPicture($("#tray"));
    this.hands = new Hands(this);
    this.offTray = new OffTray({boneyard: $("#off-tray"), captured: $("#captured")}, (item) => this.hands.pickUp(item));
    this.setup = new SetupForm($("#setup"));
    this.buttons = new Controls(this);
    this.sound = new Sound($("#act-sound"));
    this.tray.layers.push((svg, s) => drawLights(svg, s.lights, s.layout), // the tray's lights, under the tiles
      (svg, s) => this.tray.told(s.screen.instruction)); // where the instruction lays a tile, each place apart
    this.renderers = [(s) => this.tray.render(s), (s) => renderLegend($("#lights-legend"), s.lights)];
  }

  get live() { return this.controls && this.connected && !(this.state && this.state.stopped); }

  get usable() { return this.live && Boolean(this.state && this.state.virtual); }

  start() {
    follow({
      hello: (msg) => { this.controls = msg.controls; $("#login").hidden = !msg.login; if (this.state) this.render(this.state); },
      state: (s) => { if (this.hands.drag) this.waiting = s; else this.render(s); },
      open: () => { this.connected = true; this.connection(); },
      closed: () => { this.connected = false; this.connection(); if (this.state) this.render(this.state); },
    });
  }

  connection() {
    $("#connection").textContent = this.connected ? "live" : "offline";
    $("#connection").className = this.connected ? "online" : "offline";
  }

  dropped() {
    // a drag ended: the state that came meanwhile is shown now
    if (this.waiting) { const s = this.waiting; this.waiting = null; this.render(s); }
  }

  refuse(text, cells) {
    // a refusal, in words beside the prompt and outlined on the tray where it happened; "" clears it
    $("#error").textContent = text;
    this.tray.refused(text ? cells : []);
  }

  render(s) {
    this.state = s;
    const screen = s.screen || {};
    const game = screen.game;
    for (const draw of this.renderers) draw(s);
    this.stopped(s);
    $("#repairs").hidden = !s.repairs.length;
    $("#repairs").textContent = s.repairs.join(" ");
    if (s.oled && s.oled !== this.shown.oled) { $("#oled").src = s.oled; this.shown.oled = s.oled; }
    $("#oled").alt = oledText(screen);
    $("#game").textContent = game ? `${game.title}, match ${game.match}` : "choosing a match";
    $("#turn").textContent = screen.turn ? `${screen.turn} to play` : "";
    $("#warning").textContent = screen.warning || "";
    const prompt = promptOf(screen);
    $("#prompt-title").textContent = prompt.title;
    $("#prompt").replaceChildren(linkRules(prompt.text));
    $("#prompt-box").className = screen.problem ? "problem" : "";
    $("#target").textContent = game && game.goal ? `The match: ${game.goal}` : "";
    $("#last").textContent = screen.last_text ? `last: ${screen.last_text}` : "";
    $("#last").title = screen.last ? `${screen.last.who} ${screen.last.what}` : ""; // the notation, for those who read it
    this.scores(screen.scores || []);
    for (const el of document.querySelectorAll(".virtual-only")) el.hidden = !this.usable;
    $("#buttons").hidden = !this.controls;
    $("#actions").hidden = !this.controls;
    const match = game ? game.match : null;
    if (match !== this.shown.match) { this.shown.match = match; this.buttons.newMatch(); this.hands.putDown(); }
    this.menu(screen.menu);
    this.buttons.render(screen, this.live);
    this.setup.render(Boolean(screen.menu && "stage" in screen.menu) && this.live);
    this.trayList(s);
    this.offTray.render(s);
    $("#act-clear").disabled = !this.usable || !s.clearable;
    this.sound.hear(screen.alarms || 0, match);
    const f = s.faults;
    $("#fault-state").textContent = [f.unplugged ? "unplugged" : "", f.dead.length ? `dead readers: ${f.dead.join(", ")}` : "",
      Object.keys(f.flicker).length ? `flickering: ${Object.keys(f.flicker).join(", ")}` : "", f.noise ? `noise ${f.noise}` : ""]
      .filter(Boolean).join("; ");
    document.body.dataset.moves = game ? game.moves : 0;
    document.body.dataset.mode = game ? game.mode : "setup";
    this.hands.rendered();
  }

  stopped(s) {
    // a table that stopped, or that the page cannot reach: nothing can be done from here, and it says why
    const why = s.stopped || (this.connected ? "" : "The table is not answering (it has stopped, or the network is down): "
      + "its controls are off until it is back.");
    $("#stopped").hidden = !why;
    $("#stopped").textContent = why && this.controls ? `${why} The controls are off.` : why;
    document.body.classList.toggle("stopped", Boolean(why));
  }

  scores(sides) {
    $("#scores").hidden = !sides.length;
    $("#scores tbody").replaceChildren(...sides.map((side) => {
      const row = document.createElement("tr");
      for (const text of [side.name, String(side.points)]) {
        const cell = document.createElement("td");
        cell.textContent = text;
        row.append(cell);
      }
      return row;
    }));
  }

  menu(menu) {
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

  trayList(s) {
    // the tiles on the tray in words (a bot's: its rack and slot, face down), each a button to pick it up
    const marked = new Set(s.screen.cells || []);
    const items = s.tray.map((t) => ({tile: t.tile || null, at: t.cells[0], from: "tray", name: t.tile || `the tile in ${t.rack}'s slot ${t.slot}`,
      text: t.text + (t.cells.some((c) => marked.has(c)) ? " (marked)" : "")}));
    if (s.pad) items.push({tile: s.pad, at: s.layout.pad[0][0], from: "pad", name: s.pad, text: `${s.pad} held over the scan pad`});
    const key = JSON.stringify([items, this.usable]);
    if (key === this.shown.trayList) return;
    this.shown.trayList = key;
    const list = $("#tray-list");
    if (!items.length) {
      const li = document.createElement("li");
      li.textContent = "no tile";
      list.replaceChildren(li);
      return;
    }
    list.replaceChildren(...items.map((item) => {
      const li = document.createElement("li");
      if (this.usable) {
        const button = document.createElement("button");
        button.type = "button";
        button.className = "tray-item";
        if (item.tile) button.dataset.tile = item.tile;
        button.textContent = item.text;
        button.addEventListener("click", () => this.hands.pickUp(item));
        li.append(button);
      } else {
        li.textContent = item.text;
      }
      return li;
    }));
  }
}
