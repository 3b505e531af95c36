// Shared by the pages: the live stream, posting entries, and drawing dice. No framework, no build.
"use strict";

const Live = {
  // Calls onState(view) for every new snapshot, in order, once each; reconnects after a blip.
  connect(onState, onOnline) {
    let lastId = null, source = null, wait = 500;
    const newer = (id) => {
      if (lastId === null) return true;
      const [run, seq] = id.split("-"), [lastRun, lastSeq] = lastId.split("-");
      return run !== lastRun || Number(seq) > Number(lastSeq);
    };
    const open = () => {
      source = new EventSource("/api/events" + (lastId ? "?last=" + encodeURIComponent(lastId) : ""));
      source.addEventListener("open", () => { wait = 500; onOnline(true); });
      source.addEventListener("state", (event) => {
        const view = JSON.parse(event.data);
        if (!newer(view.id)) return;  // already shown: never doubled
        lastId = view.id;
        onState(view);
      });
      source.addEventListener("error", () => {
        onOnline(false);
        if (source.readyState === EventSource.CLOSED) {  // refused or gone: try again ourselves
          source.close();
          setTimeout(open, wait);
          wait = Math.min(wait * 2, 5000);
        }
      });
    };
    open();
    document.addEventListener("visibilitychange", () => {
      if (document.visibilityState === "visible" && source.readyState === EventSource.CLOSED) open();
    });
  },
};

async function post(path, body) {
  // An entry: {ok: true} or {ok: false, reason}; a network failure is a refusal too.
  try {
    const response = await fetch(path, {
      method: "POST",
      headers: {"Content-Type": "application/json"},
      body: JSON.stringify(body),
    });
    const answer = await response.json().catch(() => ({ok: false, reason: response.statusText}));
    return {status: response.status, ...answer};
  } catch (error) {
    return {status: 0, ok: false, reason: String(error)};
  }
}

const PIPS = {1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8]};

function dieElement(name, value, label) {
  // A die as a large symbol: its colour, its pips, and its value in words for screen readers.
  const die = document.createElement("span");
  die.className = "die die-" + name.replace(/[0-9]/g, "");
  die.setAttribute("role", "img");
  die.setAttribute("aria-label", label + " " + value);
  die.dataset.value = value;
  for (let i = 0; i < 9; i++) {
    const pip = document.createElement("span");
    pip.className = PIPS[value] && PIPS[value].includes(i) ? "pip on" : "pip";
    die.appendChild(pip);
  }
  return die;
}

function el(tag, attributes, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes || {})) {
    if (key === "class") node.className = value;
    else if (key === "text") node.textContent = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else if (value !== false && value !== null && value !== undefined) node.setAttribute(key, value);
  }
  for (const child of children) if (child) node.append(child);
  return node;
}

function diceLabel(view, name) {
  if (name.startsWith("white")) return "white";
  return view.text.colour[name] || name;
}

function drawSheet(view, sheet, options) {
  // A sheet as the paper one: four rows of numbers in order, the lock, penalties and points.
  // options.cells: {"red 7": option}, options.onTap(option) for the player's own sheet.
  const cells = (options && options.cells) || {};
  const box = el("div", {class: "sheet", "data-player": sheet.player});
  for (const row of sheet.rows) {
    const name = view.text.colour[row.colour];
    const line = el("div", {
      class: "row row-" + row.colour + (row.closed ? " closed" : ""),
      "data-colour": row.colour,
      role: "group",
      "aria-label": name,
    });
    line.append(el("span", {class: "row-name", text: name}));
    const numbers = el("div", {class: "numbers"});
    for (const number of row.numbers) {
      const option = cells[row.colour + " " + number];
      const marked = row.marked.includes(number);
      const lost = row.lost.includes(number);
      const state = marked ? "marked" : lost ? "lost" : option ? "lit" : "open";
      // Every open cell can be tapped: a lit one is a legal mark now, any other gets the
      // engine's reason why not.
      const tappable = options && options.onTap && state !== "marked" && state !== "lost" && !row.closed;
      const cell = el(tappable ? "button" : "span", {
        class: "cell " + state,
        "data-number": number,
        "aria-label": name + " " + number + (marked ? " ✓" : lost ? " ✗" : ""),
        text: String(number),
      });
      if (tappable) {
        const lock = number === row.numbers[row.numbers.length - 1];
        cell.addEventListener("click", () => options.onTap(option || {colour: row.colour, number, lock, action: null}));
      }
      numbers.append(cell);
    }
    numbers.append(el("span", {
      class: "cell lock" + (row.locked_here ? " marked" : ""),
      "aria-label": view.text.lock[row.colour] + (row.locked_here ? " ✓" : ""),
    }, lockIcon()));
    line.append(numbers);
    line.append(el("span", {class: "points", text: String(row.points)}));
    box.append(line);
  }
  const penalties = el("div", {class: "penalties", "aria-label": view.text.penalties + " " + sheet.penalties});
  penalties.append(el("span", {text: view.text.penalties + " "}));
  for (let i = 0; i < 4; i++) penalties.append(el("span", {class: "penalty" + (i < sheet.penalties ? " taken" : ""), text: i < sheet.penalties ? "✗" : ""}));
  penalties.append(el("span", {class: "total", "data-total": sheet.total, text: view.text.total + " " + sheet.total}));
  box.append(penalties);
  return box;
}

function showConnection(online, view) {
  const banner = document.getElementById("offline");
  if (!banner) return;
  banner.hidden = online;
  if (view) banner.textContent = view.text.offline;
}

function lockIcon() {
  // A padlock drawn as SVG: emoji fonts are not on every table screen.
  const svg = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  svg.setAttribute("viewBox", "0 0 16 16");
  svg.setAttribute("class", "lock-icon");
  svg.setAttribute("aria-hidden", "true");
  svg.innerHTML = '<path d="M4 7V5a4 4 0 0 1 8 0v2" fill="none" stroke="currentColor" stroke-width="2"/>' +
    '<rect x="2.5" y="7" width="11" height="8" rx="1.5" fill="currentColor"/>';
  return svg;
}
