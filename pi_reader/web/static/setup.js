// The setup page: behind the PIN; preview, live calibration, camera values, doctor, new game.
"use strict";

let token = sessionStorage.getItem("setup-token"), previewTimer = null;

function show(id, text) { document.getElementById(id).textContent = text; }

async function login(event) {
  event.preventDefault();
  const answer = await post("/setup/login", {pin: document.getElementById("pin").value});
  if (!answer.ok && !answer.token) { show("login-message", answer.reason); return; }
  token = answer.token;
  sessionStorage.setItem("setup-token", token);
  open();
}

async function open() {
  const response = await fetch("/setup/info?token=" + encodeURIComponent(token));
  if (response.status === 403) { sessionStorage.removeItem("setup-token"); token = null; return; }
  document.getElementById("login").hidden = true;
  document.getElementById("setup").hidden = false;
  renderInfo(await response.json());
  const preview = document.getElementById("preview");
  const next = () => { preview.src = "/setup/preview.jpg?token=" + encodeURIComponent(token) + "&t=" + Date.now(); };
  preview.addEventListener("load", () => { previewTimer = setTimeout(next, 350); });
  preview.addEventListener("error", () => { previewTimer = setTimeout(next, 1000); });
  next();
}

function renderInfo(info) {
  show("camera", info.camera ? JSON.stringify(info.camera) : "automatic (no frozen values)");
  show("calibration", info.calibration ? info.calibration.text : "");
  document.getElementById("calibration").className = info.calibration && !info.calibration.ok ? "refused" : "";
  const check = document.getElementById("check");
  check.hidden = !info.check_image;
  if (info.check_image) check.src = "/setup/check.jpg?token=" + encodeURIComponent(token) + "&t=" + Date.now();
  const doctor = document.getElementById("doctor");
  doctor.replaceChildren(...(info.doctor || []).map((c) => el("tr", {class: "status-" + c.status},
    el("td", {text: c.status}), el("td", {text: c.name}), el("td", {text: c.detail + (c.fix ? " — fix: " + c.fix : "")}))));
  const language = document.getElementById("language");
  if (!language.options.length) for (const code of info.languages) language.append(el("option", {value: code, text: code}));
}

async function action(path, body, busyText) {
  show("action-message", busyText);
  const answer = await post(path, {token, ...body});
  show("action-message", answer.ok ? "" : answer.reason);
  const response = await fetch("/setup/info?token=" + encodeURIComponent(token));
  if (response.ok) renderInfo(await response.json());
  return answer;
}

function names(id) { return document.getElementById(id).value.split(",").map((s) => s.trim()).filter(Boolean); }

document.getElementById("login-form").addEventListener("submit", login);
document.getElementById("calibrate").addEventListener("click", () => action("/setup/calibrate", {}, "calibrating…"));
document.getElementById("run-doctor").addEventListener("click", () => action("/setup/doctor", {}, "checking…"));
document.getElementById("new-game").addEventListener("submit", (event) => {
  event.preventDefault();
  action("/setup/new-game", {players: names("players"), bots: names("bots"),
    mode: document.getElementById("mode").value, language: document.getElementById("language").value}, "starting…");
});
if (token) open();
