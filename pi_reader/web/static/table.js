// The table page: the read frame, the dice, the sums, whose turn, every sheet, the join codes.
"use strict";

let tableToken = null, current = null, seatsFor = null;

async function loadSeats(view) {
  // The join links are made for each game: fetch them again when the game (or the run) changes.
  const key = view.id.split("-")[0] + "/" + view.game;
  if (seatsFor === key) return;
  seatsFor = key;
  const info = await (await fetch("/api/table")).json();
  tableToken = info.token;
  const join = document.getElementById("join");
  join.replaceChildren();
  for (const seat of info.seats) {
    if (view.bots.includes(seat.player)) continue;
    const card = el("figure", {class: "seat", "data-player": seat.player});
    const code = el("div", {class: "qr"});
    code.innerHTML = seat.qr;  // an SVG made by the server (segno), not user text
    card.append(code, el("figcaption", {}, el("span", {text: view.text.join[seat.player]}), el("br"), el("a", {href: seat.url, text: seat.url})));
    join.append(card);
  }
}

function render(view) {
  current = view;
  document.body.dataset.line = view.line;  // the game log's line count this page shows
  document.documentElement.dir = view.text.direction;
  loadSeats(view);
  const still = document.getElementById("still");
  if (view.still && still.dataset.n !== String(view.still)) {
    still.src = "/api/still.jpg?n=" + view.still;
    still.dataset.n = String(view.still);
    still.hidden = false;
  }
  document.getElementById("turn").textContent = view.over ? "" : view.text.turn[view.active];
  const dice = document.getElementById("dice"), sums = document.getElementById("sums");
  dice.replaceChildren();
  sums.replaceChildren();
  if (view.roll) {
    for (const [name, value] of Object.entries(view.roll.dice)) dice.append(dieElement(name, value, diceLabel(view, name)));
    sums.append(el("span", {class: "sum sum-white", text: "= " + view.roll.white_sum}));
    for (const [colour, values] of Object.entries(view.roll.colour_sums)) {
      sums.append(el("span", {class: "sum sum-" + colour, text: view.text.colour[colour] + " " + values.join(" / ")}));
    }
  }
  const said = document.getElementById("said");
  if (view.said.length) said.replaceChildren(...view.said.map((text) => el("li", {text})));
  document.getElementById("end").replaceChildren(...view.end.map((text) => el("p", {text})));
  document.getElementById("end").hidden = !view.over;
  const sheets = document.getElementById("sheets");
  sheets.replaceChildren();
  if (view.mode === "sheet") {
    for (const sheet of view.sheets) {
      const card = el("section", {class: "sheet-card" + (sheet.player === view.active ? " active" : "")});
      card.append(el("h2", {text: sheet.player + (view.winners.includes(sheet.player) ? " 🏆" : "")}), drawSheet(view, sheet));
      sheets.append(card);
    }
  } else {
    sheets.append(paperTable(view));
  }
  document.getElementById("paper").hidden = view.mode !== "paper";
  if (view.mode === "paper") paperButtons(view);
}

function paperTable(view) {
  const table = el("table", {class: "paper"});
  for (const player of view.players) {
    table.append(el("tr", {class: player === view.active ? "active" : ""},
      el("th", {text: player}),
      el("td", {text: view.text.penalties + " " + view.penalties[player]})));
  }
  const locked = el("p", {class: "locked"});
  for (const colour of view.locked) locked.append(lockIcon(), " " + view.text.colour[colour] + "  ");
  return el("div", {}, table, locked);
}

function paperButtons(view) {
  const box = document.getElementById("paper");
  box.replaceChildren();
  const press = async (button) => {
    const answer = await post("/api/button", {token: tableToken, button});
    document.getElementById("message").textContent = answer.ok ? "" : answer.reason;
  };
  for (const colour of ["red", "yellow", "green", "blue"]) {
    box.append(el("button", {class: "lock-button row-" + colour, "data-button": colour,
      disabled: !view.may_press || view.locked.includes(colour) ? "" : null,
      text: view.text.lock[colour], onclick: () => press(colour)}));
  }
  box.append(el("button", {"data-button": "penalty", disabled: view.may_press ? null : "", text: view.text.penalty, onclick: () => press("penalty")}));
  box.append(el("button", {"data-button": "undo", disabled: view.may_undo ? null : "", text: view.text.table_undo, onclick: () => press("undo")}));
}

Live.connect(render, (online) => showConnection(online, current));
