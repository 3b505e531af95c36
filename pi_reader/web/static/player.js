// A player's page: their sheet, the cells they may mark lit, tap to mark, pass, undo.
"use strict";

const token = decodeURIComponent(location.pathname.split("/").pop());
let me = null, current = null;

function say(text, kind) {
  const box = document.getElementById("message");
  box.textContent = text || "";
  box.className = kind || "";
}

function actionFor() {
  // A cell that is not lit: ask for the action this player would be in (the engine says why not).
  const white = current.sheets.find((s) => s.player === me).options.some((o) => o.action === "white");
  return white || me !== current.active ? "white" : "colour";
}

async function tap(option) {
  if (option.lock && !(await confirmLock(option))) return;
  if (!option.action) option = {...option, action: actionFor()};
  const answer = await post("/api/mark", {token, player: me, colour: option.colour, number: option.number, action: option.action});
  say(answer.ok ? "" : answer.reason, answer.ok ? "" : "refused");
}

function confirmLock(option) {
  const dialog = document.getElementById("confirm");
  document.getElementById("confirm-text").textContent = current.text.confirm_lock[option.colour];
  return new Promise((resolve) => {
    dialog.addEventListener("close", () => resolve(dialog.returnValue === "yes"), {once: true});
    dialog.showModal();
  });
}

let gameKey = null;

async function checkSeat(view) {
  // A new game makes new join links: this page's link may no longer act for the seat.
  const key = view.id.split("-")[0] + "/" + view.game;
  if (key === gameKey) return;
  gameKey = key;
  const response = await fetch("/api/seat/" + encodeURIComponent(token));
  if (!response.ok) {
    me = null;
    say(view.text.stale_link, "refused");
    document.getElementById("controls").hidden = true;
  }
}

function render(view) {
  checkSeat(view);
  if (me === null) return;
  current = view;
  document.body.dataset.line = view.line;  // the game log's line count this page shows
  document.documentElement.dir = view.text.direction;
  document.getElementById("who").textContent = me;
  document.getElementById("turn").textContent = view.over ? view.end.join(" ") : view.text.turn[view.active];
  const dice = document.getElementById("dice");
  dice.replaceChildren();
  if (view.roll) {
    for (const [name, value] of Object.entries(view.roll.dice)) dice.append(dieElement(name, value, diceLabel(view, name)));
    dice.append(el("span", {class: "white-sum", text: "= " + view.roll.white_sum}));
  }
  const sheetBox = document.getElementById("sheet");
  sheetBox.replaceChildren();
  const controls = document.getElementById("controls");
  if (view.mode !== "sheet") {
    controls.hidden = true;
    return;
  }
  const sheet = view.sheets.find((s) => s.player === me);
  const cells = {};
  for (const option of sheet.options) {
    const key = option.colour + " " + option.number;
    if (!cells[key] || option.action === "white") cells[key] = option;  // white first, as typed marks
  }
  sheetBox.append(drawSheet(view, sheet, {cells, onTap: tap}));
  controls.hidden = false;
  const pass = document.getElementById("pass"), undo = document.getElementById("undo");
  pass.textContent = view.text.pass;
  undo.textContent = view.text.undo;
  pass.disabled = !sheet.may_pass;
  undo.disabled = !sheet.may_undo;
}

async function start() {
  const response = await fetch("/api/seat/" + encodeURIComponent(token));
  if (!response.ok) {
    say((await response.json()).reason, "refused");
    return;
  }
  me = (await response.json()).player;
  document.title = me + " · Qwixx";
  document.getElementById("pass").addEventListener("click", async () => {
    const answer = await post("/api/pass", {token, player: me});
    say(answer.ok ? "" : answer.reason, answer.ok ? "" : "refused");
  });
  document.getElementById("undo").addEventListener("click", async () => {
    const answer = await post("/api/undo", {token, player: me});
    say(answer.ok ? "" : answer.reason, answer.ok ? "" : "refused");
  });
  Live.connect(render, (online) => showConnection(online, current));
}

start();
