// The web player's script: storage, the page's events and the one call
// into the WebAssembly (crates/web/src/lib.rs). No cryptography and no
// rules here: randomness and the time go in as values, and every text the
// page shows from a log is HTML the core escaped, or set as text.
"use strict";
(function () {
  const ID = "starry/identity";
  const GAME = "starry/game/";
  const JOINED = "starry/joined/";
  const $ = (id) => document.getElementById(id);
  let exports = null;
  let shown = null; // { id, query }

  function instantiate() {
    const b64 = $("wasm").textContent.trim();
    const raw = atob(b64);
    const bytes = new Uint8Array(raw.length);
    for (let i = 0; i < raw.length; i++) bytes[i] = raw.charCodeAt(i);
    return WebAssembly.instantiate(bytes, {}).then((r) => { exports = r.instance.exports; });
  }

  // One request in, one reply out: {ok: …} or {error: "…"}.
  function call(req) {
    // Each call's time, for the browser benchmark (benches/web_player.rs).
    const began = performance.now();
    const enc = new TextEncoder().encode(JSON.stringify(req));
    const p = exports.alloc(enc.length);
    new Uint8Array(exports.memory.buffer, p, enc.length).set(enc);
    let out;
    try {
      out = exports.call(p, enc.length);
    } catch (e) {
      // A trap leaves the module's memory unusable: start it afresh.
      exports = null;
      instantiate();
      return { error: "the player stopped on an internal error (" + e.message + "); nothing was kept" };
    }
    exports.dealloc(p, enc.length);
    const rp = Number(out >> 32n);
    const rl = Number(out & 0xffffffffn);
    const text = new TextDecoder().decode(new Uint8Array(exports.memory.buffer, rp, rl));
    exports.dealloc(rp, rl);
    const reply = JSON.parse(text);
    performance.measure("call " + req.op, { start: began });
    return reply;
  }

  function problem(text) {
    const p = $("problem");
    p.textContent = text || "";
    p.hidden = !text;
  }

  function notice(text) { $("notice").textContent = text || ""; }

  function randomHex() {
    const b = new Uint8Array(32);
    crypto.getRandomValues(b);
    return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
  }

  function now() { return new Date().toISOString().replace(/\.\d+Z$/, "Z"); }

  function identity() { return localStorage.getItem(ID); }

  function playerUrl() {
    return /^https?:$/.test(location.protocol) ? location.origin + location.pathname : null;
  }

  function download(a, text, name, type) {
    if (a.dataset.url) URL.revokeObjectURL(a.dataset.url);
    a.dataset.url = URL.createObjectURL(new Blob([text], { type: type }));
    a.href = a.dataset.url;
    a.download = name;
  }

  function showIdentity() {
    const file = identity();
    const who = $("identity-who");
    const exp = $("identity-export");
    if (!file) {
      who.textContent = "No identity in this browser yet: create one, or import the one starry uses.";
      exp.hidden = true;
      return;
    }
    const r = call({ op: "identity_read", file: file });
    if (r.error) { who.textContent = ""; problem(r.error); return; }
    who.textContent = "You are " + r.ok.name + " <" + r.ok.email + ">, key " + r.ok.key + ".";
    download(exp, file, "identity.json", "application/json");
    exp.hidden = false;
  }

  function storedGames() {
    const all = {};
    for (let i = 0; i < localStorage.length; i++) {
      const k = localStorage.key(i);
      if (k.startsWith(GAME)) all[k.slice(GAME.length)] = localStorage.getItem(k);
    }
    return all;
  }

  function showGames() {
    const r = call({ op: "games", games: storedGames(), identity: identity() });
    const list = $("games");
    list.textContent = "";
    if (r.error) { problem(r.error); return; }
    for (const g of r.ok.games) {
      const li = document.createElement("li");
      const a = document.createElement("a");
      a.dataset.game = g.id;
      a.href = "?game=" + g.id;
      a.textContent = g.error ? g.id.slice(0, 8) + ": " + g.error
        : g.title + " (" + g.players.join(", ") + ")" + (g.over ? ": over" : g.yours ? ": your turn" : g.to_act ? ": waiting for " + g.to_act : "");
      li.appendChild(a);
      list.appendChild(li);
    }
  }

  function showGame(id, query) {
    const log = localStorage.getItem(GAME + id);
    if (!log) { problem("this browser holds no game " + id.slice(0, 16)); return; }
    shown = { id: id, query: query || "" };
    const r = call({ op: "page", log: log, identity: identity(), query: shown.query, now: now() });
    if (r.error) { problem(r.error); return; }
    document.title = r.ok.title + " · starry";
    $("game").innerHTML = r.ok.html;
  }

  function receive(input) {
    const which = call({ op: "game_of", input: input });
    if (which.error) { problem(which.error); return; }
    const id = which.ok.game;
    const r = call({ op: "receive", input: input, stored: localStorage.getItem(GAME + id) });
    if (r.error) { problem(r.error); return; }
    localStorage.setItem(GAME + id, r.ok.log);
    problem("");
    notice(r.ok.added ? r.ok.title + ": " + r.ok.added + " new entries taken." : r.ok.title + ": nothing new; your copy already holds these entries.");
    showGames();
    showGame(id, "");
  }

  function act(fields) {
    const id = shown.id;
    const r = call({
      op: "act", log: localStorage.getItem(GAME + id), identity: identity(), fields: fields,
      now: now(), random: randomHex(), joined: localStorage.getItem(JOINED + id), player_url: playerUrl(),
    });
    if (r.error) { problem(r.error); return; }
    if (r.ok.confirm) { showGame(id, "confirm=" + encodeURIComponent(r.ok.confirm)); return; }
    // The join first: a join kept and not written is written again, never
    // a second one with a fresh nonce.
    if (r.ok.joined) localStorage.setItem(JOINED + id, r.ok.joined);
    localStorage.setItem(GAME + id, r.ok.log);
    problem("");
    notice("Entry " + r.ok.entry + " written: " + r.ok.summary + ".");
    showSend(r.ok.send);
    showGames();
    showGame(id, "");
  }

  function showSend(send) {
    const s = $("send");
    if (!send) { s.hidden = true; return; }
    $("send-what").textContent = "Tell " + send.names.join(", ") + " (" + send.subject + "):";
    $("mail-it").href = send.mailto;
    $("send-body").value = send.body;
    download($("download"), send.entries, send.file_name, "application/x-ndjson");
    s.hidden = false;
  }

  function wire() {
    $("identity-new").addEventListener("submit", (e) => {
      e.preventDefault();
      const f = new FormData(e.target);
      const r = call({ op: "identity_new", name: f.get("name"), email: f.get("email"), random: randomHex() });
      if (r.error) { problem(r.error); return; }
      localStorage.setItem(ID, r.ok.file);
      problem("");
      showIdentity();
    });
    $("identity-import").addEventListener("submit", (e) => {
      e.preventDefault();
      const form = e.target;
      const picked = form.elements.pick.files[0];
      const take = (text) => {
        const r = call({ op: "identity_read", file: text });
        if (r.error) { problem(r.error); return; }
        if (identity() && identity() !== r.ok.file && !confirm("Replace the identity this browser holds? Without a backup of it, its games cannot be played on.")) return;
        localStorage.setItem(ID, r.ok.file);
        form.elements.file.value = "";
        problem("");
        showIdentity();
      };
      // The chosen file is taken once: a text pasted later is not
      // overridden by a file chosen before.
      form.elements.pick.value = "";
      if (picked) picked.text().then(take); else take(form.elements.file.value);
    });
    $("receive-go").addEventListener("click", () => {
      const picked = $("receive-file").files[0];
      if (picked) picked.text().then((t) => { $("receive-file").value = ""; receive(t); });
      else receive($("receive-text").value);
    });
    const drop = $("receive");
    drop.addEventListener("dragover", (e) => e.preventDefault());
    drop.addEventListener("drop", (e) => {
      e.preventDefault();
      const f = e.dataTransfer.files[0];
      if (f) f.text().then(receive); else receive(e.dataTransfer.getData("text/plain"));
    });
    $("games").addEventListener("click", (e) => {
      const a = e.target.closest("a[data-game]");
      if (!a) return;
      e.preventDefault();
      showGame(a.dataset.game, "");
    });
    $("game").addEventListener("click", (e) => {
      const a = e.target.closest("a");
      const href = a && a.getAttribute("href");
      if (!href || !href.startsWith("?")) return;
      e.preventDefault();
      const q = new URLSearchParams(href.slice(1));
      showGame(q.get("game") || shown.id, href.slice(1));
    });
    $("game").addEventListener("submit", (e) => {
      e.preventDefault();
      const f = new FormData(e.target);
      if ((e.target.getAttribute("method") || "get").toLowerCase() === "get") {
        showGame(f.get("game") || shown.id, new URLSearchParams(f).toString());
        return;
      }
      const fields = {};
      for (const [k, v] of f.entries()) fields[k] = String(v);
      act(fields);
    });
    $("copy").addEventListener("click", () => {
      const text = $("send-body").value;
      const fallback = () => { $("send-body").select(); document.execCommand("copy"); };
      if (navigator.clipboard) navigator.clipboard.writeText(text).then(() => notice("The mail's text is copied."), fallback);
      else fallback();
    });
    window.addEventListener("hashchange", fromFragment);
  }

  // A link's entries: read, then taken out of the address and the history
  // (a fragment is never sent to the host, and is not kept either).
  function fromFragment() {
    const h = location.hash;
    if (!h.startsWith("#log=")) return;
    history.replaceState(null, "", location.pathname + location.search);
    receive(h);
  }

  instantiate().then(() => {
    wire();
    showIdentity();
    showGames();
    const q = new URLSearchParams(location.search);
    if (q.get("game")) showGame(q.get("game"), location.search.slice(1));
    fromFragment();
    document.documentElement.dataset.ready = "1";
    if ("serviceWorker" in navigator && /^https?:$/.test(location.protocol)) {
      navigator.serviceWorker.register("sw.js").catch(() => {});
    }
  }, (e) => problem("this browser cannot run the player's WebAssembly (" + e.message + ")"));
})();
