// The buzzer, mirrored: once Sound is on (a click is what lets a page make sound), every alarm the
// table counts beeps.

export class Sound {
  constructor(button) {
    this.button = button;
    this.context = null;
    this.on = false;
    this.alarms = null;
    this.match = null;
    button.addEventListener("click", () => this.toggle());
  }

  toggle() {
    if (!this.context) this.context = new AudioContext();
    this.on = !this.on;
    if (this.on) this.context.resume();
    this.button.setAttribute("aria-pressed", String(this.on));
    this.button.textContent = this.on ? "Sound on" : "Sound off";
  }

  hear(alarms, match) {
    // the buzzer sounded once for every alarm the table counts: beep as the count grows
    if (this.match === match && this.alarms !== null && alarms > this.alarms && this.on) this.beep();
    this.alarms = alarms; this.match = match;
  }

  beep() {
    const now = this.context.currentTime;
    const tone = this.context.createOscillator(), gain = this.context.createGain();
    tone.frequency.value = 2300; // about a piezo buzzer's
    gain.gain.setValueAtTime(0.15, now);
    gain.gain.exponentialRampToValueAtTime(0.001, now + 0.25);
    tone.connect(gain).connect(this.context.destination);
    tone.start(now);
    tone.stop(now + 0.25);
  }
}
