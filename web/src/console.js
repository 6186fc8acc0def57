// The command line: the server's own grammar, with history (kept in this browser)
// and completion of command names, scenario names and vehicle parameter keys.
export class Console {
  constructor(input, form, output, run) {
    this.input = input;
    this.output = output;
    this.run = run;
    this.words = [];
    this.history = JSON.parse(localStorage.getItem('steer.history') || '[]');
    this.at = this.history.length;
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      const line = input.value.trim();
      if (!line) return;
      this.history = this.history.filter((h) => h !== line).concat([line]).slice(-200);
      localStorage.setItem('steer.history', JSON.stringify(this.history));
      this.at = this.history.length;
      input.value = '';
      this.run(line);
    });
    input.addEventListener('keydown', (ev) => this.key(ev));
  }

  // Learns the words to complete from the server's help: commands and scenarios.
  learn(help) {
    this.words = [...Object.keys(help.about || {}), ...(help.scenarios || [])].sort();
  }

  show(text, error) {
    this.output.textContent = text;
    this.output.className = error ? 'error' : '';
  }

  key(ev) {
    const input = this.input;
    if (ev.key === 'ArrowUp' || ev.key === 'ArrowDown') {
      ev.preventDefault();
      this.at = Math.max(0, Math.min(this.history.length, this.at + (ev.key === 'ArrowUp' ? -1 : 1)));
      input.value = this.history[this.at] || '';
    } else if (ev.key === 'Tab') {
      ev.preventDefault();
      const m = /(\S*)$/.exec(input.value.slice(0, input.selectionStart));
      const stem = m[1];
      const hits = this.words.filter((w) => w.startsWith(stem));
      if (hits.length === 0) return;
      let common = hits[0];
      for (const h of hits) while (!h.startsWith(common)) common = common.slice(0, -1);
      const done = hits.length === 1 ? common + ' ' : common;
      input.value = input.value.slice(0, input.selectionStart - stem.length) + done +
        input.value.slice(input.selectionStart);
      if (hits.length > 1) this.show(hits.join('  '), false);
    } else if (ev.key === 'Escape') {
      input.blur();
    }
  }
}
