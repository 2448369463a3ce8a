// The browser app of `scopa serve`: a match against the computer over the engine's WebSocket
// protocol (docs/engine-protocol.md), drawn with the server's SVG cards. No build step, no CDN.

import { Engine } from "./engine.js";

const $ = (id) => document.getElementById(id);

const engine = new Engine(`${location.protocol === "https:" ? "wss" : "ws"}://${location.host}/ws`);

// ------------------------------------------------------------------ cards and names

const SUITS = {
  french: { d: "diamonds", c: "hearts", s: "spades", b: "clubs" },
  italian: { d: "denari", c: "coppe", s: "spade", b: "bastoni" },
  spanish: { d: "oros", c: "copas", s: "espadas", b: "bastos" },
};
const COURTS = {
  french: { J: "jack", Q: "queen", K: "king" },
  italian: { J: "fante", Q: "cavallo", K: "re" },
  spanish: { J: "sota", Q: "caballo", K: "rey" },
};
// A card's name is in its deck's language, the ace and "of" too (an audit: "fante of coppe"):
// "queen of diamonds", "cavallo di coppe", "caballo de copas" (see cardName)
const ACES = { french: "ace", italian: "asso", spanish: "as" };
const OF = { french: "of", italian: "di", spanish: "de" };
// The suit of coins (denari) in the app's English, by deck: its own name with the French deck
// (an audit: the French deck's House rules said "coins"), [plural, singular]
const COINS = { french: ["diamonds", "diamond"], italian: ["coins", "coin"], spanish: ["coins", "coin"] };
const game = {
  deck: "french",
  seat: 0,
  player: "pimc",
  rules: "scopa", // the preset of the match in play (the Game menu may have been changed since)
  match: null, // the match JSON the engine returned last: the client holds it
  undo: [], // match JSONs from before each of your plays
  pendingCard: null, // a card of your hand whose captures are being chosen
  selected: new Set(), // table cards picked for a capture
  legal: [],
  busy: false,
  handOver: null, // {final, points, score} while the end of a hand is shown (its final position)
  token: 0, // bumped by a new match or an undo: a computer turn in flight then stops
  greeted: false, // the player list was filled from the server's hello (the page's start)
  drawn: null, // the position drawn last (not the match's: its turn was not drawn yet)
  logEntries: [], // [text, big] of the log's lines, oldest first: saved with the match
  saveFailed: false, // the last save failed (said once in the log)
  savedElsewhere: false, // another tab saved its match over this one's (said once in the log)
  away: false, // the page is in the back-forward cache
  cachedWs: null, // the engine's connection when the page last went into that cache
};

// ------------------------------------------------------------------ the house rules

// The rule options the House rules offer (RULES §3.2 and §7), by the engine's names, and how
// the log names them. All are off in the presets.
const HOUSE_RULES = {
  capture_rule: "the fewest cards captured",
  ace_takes_all: "asso piglia tutto",
  ace_sweep_is_scopa: "its sweep a scopa",
  re_bello: "re bello",
  napola: "napola",
  scopa_on_last_play: "a scopa on the last play",
};

function houseBoxes() {
  return [...document.querySelectorAll("#house-rules input[data-option]")];
}

// (the ace's sweep is a scopa only in a game where the ace takes all: the engine refuses it alone;
// disabled, its box says why under it, in words tied to it: Tab skips a disabled box)
function syncHouseRules() {
  const sweep = document.querySelector('#house-rules input[data-option="ace_sweep_is_scopa"]');
  const ace = document.querySelector('#house-rules input[data-option="ace_takes_all"]');
  sweep.disabled = !ace.checked;
  if (sweep.disabled) sweep.checked = false;
  $("ace-sweep-why").hidden = !sweep.disabled;
  if (sweep.disabled) sweep.setAttribute("aria-describedby", "ace-sweep-why");
  else sweep.removeAttribute("aria-describedby");
}

// The rules the menu asks for: the preset's name, or {preset, option: value, ...} with house rules.
function menuRules() {
  const preset = $("game").value;
  const options = {};
  for (const box of houseBoxes()) {
    if (box.checked && !box.disabled) options[box.dataset.option] = box.value === "on" ? true : box.value;
  }
  return Object.keys(options).length ? { preset, ...options } : preset;
}

// A house rule a match's rules (the engine's JSON: a preset's name, or an object) have on.
function houseRuleOn(rules, option) {
  const value = rules && typeof rules === "object" ? rules[option] : undefined;
  return value !== undefined && value !== false && value !== "free";
}

// The menu set to a match's own rules.
function showRules(rules, preset) {
  $("game").value = preset;
  for (const box of houseBoxes()) box.checked = houseRuleOn(rules, box.dataset.option);
  syncHouseRules();
  if (houseBoxes().some((box) => box.checked)) $("house-rules").open = true;
}

// The House rules that name the suit of coins, said with the deck the menu has: "the king of
// diamonds" with the French deck, "the king of coins (re di denari)" with the Italian.
function describeHouseRules(deck = $("deck").value) {
  const [coins, coin] = COINS[deck];
  const own = (text) => (deck === "french" ? "" : ` (${text})`);
  const texts = {
    re_bello: `Re bello: the king of ${coins}${own(cardName("Kd", deck))} scores 1`,
    napola: `Napola: ace, two and three of ${coins}${own(SUITS[deck].d)} score 3, and 1 more a ${coin} in sequence`,
  };
  for (const [option, text] of Object.entries(texts)) {
    const label = document.querySelector(`#house-rules input[data-option="${option}"]`).closest("label");
    put(label.querySelector("span"), text);
  }
}

// " with re bello, napola" for a match's rules with house rules on, else "".
function houseRulesText(rules) {
  const on = Object.keys(HOUSE_RULES).filter((option) => houseRuleOn(rules, option));
  return on.length ? ` with ${on.map((option) => HOUSE_RULES[option]).join(", ")}` : "";
}

// ------------------------------------------------------------------ the match kept in this browser

// The match in play is saved in this browser (localStorage) whenever it is drawn, so that a
// reload, Back or a closed tab goes on where it was; a match over is forgotten.
const SAVED = "scopa.match";
const MAX_LOG = 300;
// The Animations setting, kept in this browser; without one, off when the system asks for
// reduced motion (the pause between the computer's moves too, not only the transitions)
const ANIMATE = "scopa.animate";

function loadAnimate() {
  let kept = null;
  try {
    kept = localStorage.getItem(ANIMATE);
  } catch {
    // (storage off: the system's preference decides)
  }
  const reduce = window.matchMedia && window.matchMedia("(prefers-reduced-motion: reduce)").matches;
  $("animate").checked = kept === null ? !reduce : kept === "on";
  document.body.classList.toggle("animate", $("animate").checked);
}

function keepAnimate() {
  document.body.classList.toggle("animate", $("animate").checked);
  try {
    localStorage.setItem(ANIMATE, $("animate").checked ? "on" : "off");
  } catch {
    // (storage off or full: the setting lasts as long as the page)
  }
}

function saveMatch() {
  if (!game.match || game.match.winner !== null) return forgetSaved(); // (nothing to keep)
  try {
    const saved = {
      version: 1,
      match: game.match,
      undo: game.undo,
      handOver: game.handOver,
      seat: game.seat,
      deck: game.deck,
      player: game.player,
      game: game.rules, // (the match's own, not the menu's: changed, it waits for New match)
      target: game.match.target,
      log: game.logEntries,
    };
    localStorage.setItem(SAVED, JSON.stringify(saved));
    game.saveFailed = false;
    game.savedElsewhere = false;
  } catch {
    forgetSaved(); // (storage full or off) an older save must not come back at a reload
    if (!game.saveFailed) log("This browser could not keep the match: a reload will not bring it back.");
    game.saveFailed = true;
  }
}

function forgetSaved() {
  try {
    localStorage.removeItem(SAVED);
  } catch {
    // (storage off: nothing was saved either)
  }
}

// The saved match, if there is one this page can go on with, else null (and it is forgotten).
function savedMatch(players) {
  let raw = null; // (the entry as stored: null when there is none, or no storage)
  let saved;
  try {
    raw = localStorage.getItem(SAVED);
    saved = JSON.parse(raw);
  } catch {
    saved = null;
  }
  const fine =
    saved &&
    saved.version === 1 &&
    saved.match &&
    typeof saved.match === "object" &&
    saved.match.winner === null &&
    saved.match.position &&
    Array.isArray(saved.match.position.hands) &&
    Array.isArray(saved.undo) &&
    saved.undo.every((m) => m && typeof m === "object" && !Array.isArray(m)) &&
    Array.isArray(saved.log) &&
    saved.log.every((e) => Array.isArray(e) && e.length === 2 && typeof e[0] === "string") &&
    saved.seat === 0 && // (the app's seat in every match)
    Object.hasOwn(SUITS, saved.deck) &&
    players.includes(saved.player) &&
    [...$("game").options].some((o) => o.value === saved.game);
  if (!fine) {
    forgetSaved();
    if (raw !== null) setStatus("idle", "The match saved in this browser could not go on and was forgotten. Choose a game and press New match.");
    return null;
  }
  return saved;
}

async function resumeMatch(saved) {
  const token = supersede();
  // (a hand over's score is asked of the engine again, from its final position: not what was stored)
  const over = saved.handOver && { final: saved.handOver.final, points: saved.handOver.points };
  Object.assign(game, { match: saved.match, undo: saved.undo, handOver: over, seat: saved.seat });
  Object.assign(game, { deck: saved.deck, player: saved.player, rules: saved.game, logEntries: [] });
  showRules(saved.match.rules, saved.game); // (the match's own options, not the menu's)
  $("difficulty").value = saved.player;
  $("deck").value = saved.deck;
  describeHouseRules();
  $("target").value = saved.target;
  $("log").replaceChildren();
  // the restored lines are not news: the log is silent until a frame has drawn them (a browser
  // takes a live region's changes into its accessibility tree at a frame, not at once: turned
  // off and on again in one task, the log announced every restored line)
  $("log").setAttribute("aria-live", "off");
  for (const [text, big] of saved.log.slice(-MAX_LOG)) log(text, !!big);
  await afterFrame();
  $("log").setAttribute("aria-live", "polite");
  if (token !== game.token) return; // (a new match meanwhile)
  log("The match saved in this browser goes on.");
  try {
    await checkMatch(saved.match);
    if (game.handOver) await handOver();
    else await advance();
  } catch (err) {
    if (token !== game.token) throw err; // (a new match meanwhile: its own error)
    // the engine refused what was saved (another version of scopa, a record edited by hand):
    // forgotten, and the page starts afresh
    Object.assign(game, { match: null, undo: [], handOver: null, logEntries: [] });
    saveMatch();
    $("board").hidden = true;
    $("hand-end").hidden = true;
    $("log").replaceChildren();
    setStatus("idle", `The saved match could not go on (${err.message}). Choose a game and press New match.`);
  }
}

// The engine replays the whole match (as it does for each play): a move of it sent back and
// its answer dropped. Throws what the engine says of a match it refuses.
async function checkMatch(match) {
  const moves = (await game.engine.ask({ cmd: "legal", position: match.position })).moves;
  if (moves.length) await game.engine.ask({ cmd: "match_play", match, move: moves[0] });
}

function cardName(card, deck = game.deck) {
  const rank = card[0];
  const value = rank === "A" ? ACES[deck] : COURTS[deck][rank] || rank;
  return `${value} ${OF[deck]} ${SUITS[deck][card[1]]}`;
}

// ------------------------------------------------------------------ the languages of parts

// The words of another language the page shows are marked with it (WCAG 3.1.2, the language of
// parts; an accessibility audit): the names of the Italian and Spanish decks' cards and suits,
// and the game's Italian words (scopa, primiera, settebello, the house rules' names). A card's
// picture says its language (lang on the img, for its text alternative); a button's aria-label
// cannot (a name is one string, of one language: the card buttons' names are said in English).
const LANGS = { italian: "it", spanish: "es" };
const ITALIAN_WORDS = ["scopa", "scope", "scopone scientifico", "primiera", "settebello", "re bello", "napola", "asso piglia tutto"];
const FOREIGN = (() => {
  const lang = new Map(); // a phrase, in lower case: its language
  for (const [deck, code] of Object.entries(LANGS)) {
    for (const suit of Object.keys(SUITS[deck])) {
      lang.set(SUITS[deck][suit], code);
      for (const rank of ["A", "2", "3", "4", "5", "6", "7", "J", "Q", "K"]) lang.set(cardName(rank + suit, deck), code);
    }
  }
  for (const word of ITALIAN_WORDS) lang.set(word, "it");
  const phrases = [...lang.keys()].sort((a, b) => b.length - a.length); // (the longest first: "re di denari", not "denari")
  return { lang, re: new RegExp(`(?<![\\p{L}\\d])(?:${phrases.join("|")})(?![\\p{L}\\d])`, "giu") };
})();

// `text` as the nodes to show it: its words of another language each in a span of its language.
function textNodes(text) {
  const nodes = [];
  let at = 0;
  for (const m of text.matchAll(FOREIGN.re)) {
    if (m.index > at) nodes.push(text.slice(at, m.index));
    nodes.push(Object.assign(document.createElement("span"), { lang: FOREIGN.lang.get(m[0].toLowerCase()), textContent: m[0] }));
    at = m.index + m[0].length;
  }
  if (at < text.length) nodes.push(text.slice(at));
  return nodes;
}

// An element's text set to `text` (as textContent would), its words of another language marked.
function put(el, text) {
  el.replaceChildren(...textNodes(text));
  return el;
}

function cardImage(card, deck = game.deck) {
  const img = document.createElement("img");
  img.src = `/cards/${deck}/${card}.svg`;
  img.alt = cardName(card, deck);
  if (LANGS[deck]) img.lang = LANGS[deck];
  img.width = 60;
  img.height = 90;
  return img;
}

function backImage(alt = "a card face down") {
  const img = document.createElement("img");
  img.src = `/cards/${game.deck}/back.svg`;
  img.alt = alt;
  img.width = 60;
  img.height = 90;
  return img;
}

function moveText(move) {
  const [card, taken] = move.split("x");
  if (!taken) return `${cardName(card)}, laid down`;
  const cards = taken.match(/../g).map((c) => cardName(c));
  return `${cardName(card)} takes ${cards.join(" and ")}`;
}

function teamName(team) {
  if (game.match && game.match.position.hands.length === 2) return team === game.seat % 2 ? "you" : "the computer";
  return team === game.seat % 2 ? "your team" : "their team";
}

function seatName(seat) {
  if (!game.match) return `seat ${seat}`;
  if (seat === game.seat) return "you";
  if (game.match.position.hands.length === 2) return "the computer";
  return seat % 2 === game.seat % 2 ? "your partner" : `opponent (seat ${seat})`;
}

// A sentence's first letter a capital ("the computer is thinking…" began a sentence in lower case).
function sentence(text) {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function setStatus(state, text) {
  const s = $("status");
  s.dataset.state = state;
  put(s, text);
}

function log(text, big = false) {
  game.logEntries.push([text, big]);
  if (game.logEntries.length > MAX_LOG) game.logEntries.shift();
  logLine(text, big);
}

function logLine(text, big) {
  const li = document.createElement("li");
  put(li, text);
  if (big) li.className = "big";
  $("log").prepend(li);
  while ($("log").children.length > MAX_LOG) $("log").lastElementChild.remove();
}

// Resolves once the page has drawn a frame (or after half a second where it draws none: a page
// in the background).
function afterFrame() {
  return new Promise((ok) => {
    const late = setTimeout(ok, 500);
    requestAnimationFrame(() => setTimeout(() => { clearTimeout(late); ok(); }, 0));
  });
}

function pause(ms) {
  return new Promise((ok) => setTimeout(ok, $("animate").checked ? ms : 0));
}

function showError(err) {
  setStatus("error", `Error: ${err.message}`);
  console.warn(err);
  // the page cannot go on by itself when the engine failed at its start, with the computer to
  // move (or about to), or before your turn was drawn (a new hand, an undo: the cards on the
  // table are the last position's, not to be played): a button asks again (it reconnects
  // first, as every request does)
  const undrawn = myTurn() && !turnDrawn();
  if (undrawn) document.querySelectorAll("#hand button").forEach((b) => (b.disabled = true));
  updateControls();
  if (!game.greeted || (inPlay() && !game.busy && (!myTurn() || undrawn))) {
    $("go-on").hidden = false;
    $("go-on").focus();
  }
}

// ------------------------------------------------------------------ drawing

async function render() {
  saveMatch();
  const m = game.match;
  // at the end of a hand its last position stays on the table until Next hand
  const position = game.handOver ? game.handOver.final : m.position;
  const view = (await game.engine.ask({ cmd: "view", position, seat: game.seat })).view;
  game.drawn = position;
  document.body.classList.toggle("animate", $("animate").checked);
  $("board").hidden = false;
  // the other seats: their cards face down, by count; in one row as at a real table, where
  // play goes counter-clockwise: the seat before yours on the left, the next on your right
  // (and your partner across, in the middle)
  const opp = $("opponents");
  opp.replaceChildren();
  const n = view.hands.length;
  const others = Array.from({ length: n - 1 }, (_, k) => (game.seat + n - 1 - k) % n);
  others.forEach((seat) => {
    const h = view.hands[seat];
    const div = document.createElement("div");
    const toMove = view.turn === seat && inPlay(); // (none once the hand is over)
    div.className = "seat" + (toMove ? " turn" : "");
    div.dataset.seat = seat;
    const label = document.createElement("p");
    label.textContent = sentence(`${seatName(seat)}: ${h} card${h === 1 ? "" : "s"}`) + (toMove ? " (to move)" : "");
    const cards = document.createElement("div");
    cards.className = "seat-cards";
    cards.setAttribute("aria-hidden", "true"); // the label above says how many: not one alt a card
    for (let i = 0; i < h; i++) cards.append(backImage(""));
    div.append(label, cards);
    opp.append(div);
  });
  // the table
  const last = view.history.length ? view.history[view.history.length - 1][1] : null;
  const table = $("table");
  table.replaceChildren();
  for (const card of view.table) {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "table-card" + (last === card ? " last" : "");
    b.dataset.card = card;
    b.append(cardImage(card));
    b.addEventListener("click", () => pickTableCard(card));
    table.append(b);
  }
  if (!view.table.length) table.textContent = "The table is empty.";
  const [c0, c1] = view.captured;
  put(
    $("piles"),
    `${sentence(teamName(0))}: ${c0.length} cards, ${scopeText(view.scope[0])} · ${sentence(teamName(1))}: ` +
      `${c1.length} cards, ${scopeText(view.scope[1])}` + (view.stock ? ` · Stock: ${view.stock}` : ""),
  );
  // your hand: every card a button
  const hand = $("hand");
  hand.replaceChildren();
  const mine = myTurn();
  view.hands[game.seat].forEach((card, i) => {
    const b = document.createElement("button");
    b.type = "button";
    b.className = "card-button";
    b.dataset.card = card;
    b.dataset.key = `${(i + 1) % 10}`; // (its key: 0 for the tenth; its name says it, see markSelected)
    b.append(cardImage(card));
    b.disabled = !mine || game.busy;
    b.addEventListener("click", () => playCard(card));
    hand.append(b);
  });
  markSelected(); // (the cards' names, and the card of your hand whose capture is being chosen)
  // the cards already played this hand
  const played = $("played");
  played.replaceChildren();
  const cards = view.history.map(([, move]) => move.slice(0, 2));
  const p = document.createElement("p");
  p.textContent = cards.length ? `Played this hand (${cards.length}):` : "Nothing played yet this hand.";
  const mini = document.createElement("div");
  mini.className = "mini";
  for (const c of cards) mini.append(cardImage(c));
  played.append(p, mini);
  const [a, b] = m.scores;
  const me = game.seat % 2;
  const scoreText = `Match: ${teamName(me)} ${[a, b][me]}, ${teamName(1 - me)} ${[a, b][1 - me]} — to ${m.target}`;
  if ($("match-score").textContent !== scoreText) $("match-score").textContent = scoreText; // (a live region: said once)
  updateControls();
  // the focused card was redrawn (or hidden), or the focused control is now disabled or hidden
  // (Undo with nothing left to undo, Next hand), or the focus waited on the status line for your
  // turn: focus your first playable card, else the status line
  const at = document.activeElement;
  if (!at || nowhereInParticular(at) || at.disabled || !at.isConnected || at.closest("[hidden]")) {
    const first = hand.querySelector("button:not([disabled])");
    (first || $("status")).focus();
  }
}

function scopeText(n) {
  return `${n} scop${n === 1 ? "a" : "e"}`;
}

function renderCaptures(card) {
  const box = $("captures");
  box.replaceChildren();
  const moves = game.legal.filter((m) => m.startsWith(card));
  if (moves.length < 2) return;
  const p = document.createElement("p");
  put(p, sentence(`${cardName(card)} can capture in ${moves.length} ways: choose one (or pick the table cards).`));
  box.append(p);
  for (const move of moves) {
    const b = document.createElement("button");
    b.type = "button";
    b.dataset.move = move;
    put(b, sentence(moveText(move)));
    b.addEventListener("click", () => submit(move));
    box.append(b);
  }
  box.querySelector("button").focus();
}

// ------------------------------------------------------------------ playing

// What is in flight (a computer's turn, a play of yours on its way, a hint, a start that would
// bring back the saved match) superseded: each checks the token when its answer comes and
// drops it. The play on its way gives up the busy flag at once: the new match's own turn is not
// drawn with its cards disabled, and the play's end no longer takes the page on from its match.
function supersede() {
  game.busy = false;
  return ++game.token;
}

async function newMatch() {
  const token = supersede(); // a second New match (a double click) supersedes this one
  game.engine.stop(); // (and what the computer was thinking about: its searches are stopped)
  // (pressed, or Enter in the form's points field: the focus goes on to your hand)
  const from = document.activeElement;
  const pressed = from === $("new-game") || from === $("target");
  await greet(); // (the player to choose comes from the server: a start it failed is tried again)
  if (token !== game.token) return;
  game.deck = $("deck").value;
  game.player = $("difficulty").value || "pimc";
  const rules = menuRules();
  // (as the number field reads it: "1e1" is 10, which parseInt read as 1)
  const asked = Math.round($("target").valueAsNumber);
  const target = Number.isNaN(asked) ? 11 : Math.max(1, Math.min(99, asked));
  $("target").value = target;
  const seed = new URLSearchParams(location.search).get("seed");
  const req = { cmd: "match_new", rules, target };
  // (a whole number JavaScript holds exactly: "abc" or "-1" made New match fail with the
  // server's error, and a longer one was rounded to another seed)
  const noSeed = seed !== null && !/^[0-9]{1,15}$/.test(seed);
  if (seed !== null && !noSeed) req.seed = Number(seed);
  const reply = await game.engine.ask(req);
  if (token !== game.token) return;
  game.match = reply.match;
  game.rules = typeof rules === "string" ? rules : rules.preset;
  game.seat = 0;
  game.undo = [];
  game.handOver = null;
  clearChoice(); // (the last match's capture choice: its moves are not this one's)
  game.logEntries = [];
  $("log").replaceChildren();
  $("hand-end").hidden = true;
  clearBoard($("review-board")); // (the last match's review: its position is not this match's)
  $("hint-text").textContent = "";
  const gameName = ($("game").selectedOptions[0]?.textContent || game.rules) + houseRulesText(game.match.rules);
  // (the board, with the list of what happened, shown first: a line added to a hidden live
  // region is not read out, and the first match's board was hidden until its cards were drawn)
  $("board").hidden = false;
  log(`New match of ${gameName} to ${target}: ${seatName(game.match.dealer)} deal${game.match.dealer === game.seat ? "" : "s"}.`);
  if (noSeed) log(`The address's seed ${JSON.stringify(seed)} is not a whole number of at most 15 digits: this match's deals are random.`);
  await advance();
  // the match begins at your hand: the focus goes there from New match (unless it was moved meanwhile)
  if (token === game.token && pressed && document.activeElement === from) {
    ($("hand").querySelector("button:not([disabled])") || $("status")).focus();
  }
}

// Play the computer seats until it is your turn, the hand ends or the match is over.
async function advance() {
  const token = game.token;
  // (Reconnect and go on hides itself: the focus it had waits on the status line, not on the page)
  if (document.activeElement === $("go-on")) $("status").focus();
  $("go-on").hidden = true;
  game.legal = []; // (the turn drawn last is not this one: none of its cards may be played)
  // (no earlier status stays up while the next turn is fetched and drawn)
  if (game.match.winner === null && !game.handOver) setStatus("waiting", "One moment…");
  while (game.match.winner === null && !game.handOver && token === game.token) {
    const pos = game.match.position;
    if (pos.turn === game.seat) {
      const legal = (await game.engine.ask({ cmd: "legal", position: pos })).moves;
      if (token !== game.token) return;
      game.legal = legal;
      await render(); // (drawn first: a script that sees "your-turn" finds your cards ready)
      if (token !== game.token) return;
      if ($("hint-text").textContent === WAIT_TURN) $("hint-text").textContent = ""; // (it is now)
      setStatus("your-turn", YOUR_TURN);
      return;
    }
    setStatus("waiting", sentence(`${seatName(pos.turn)} is thinking…`));
    await render();
    const view = (await game.engine.ask({ cmd: "view", position: pos, seat: pos.turn })).view;
    const ask = { cmd: "bestmove", view, player: game.player };
    if (!game.player.startsWith("level")) ask.time_ms = 300; // (a level keeps its own time cap)
    const { move } = await game.engine.ask(ask);
    if (token !== game.token) return;
    await pause(250);
    if (token !== game.token) return; // an undo or a new match came in the pause
    await play(move, token);
  }
  if (game.match.winner !== null && !game.handOver) await matchOver();
}

async function play(move, token = game.token) {
  const before = game.match;
  const seat = before.position.turn;
  const reply = await game.engine.ask({ cmd: "match_play", match: before, move });
  if (token !== game.token || game.match !== before) return; // superseded while it was asked
  game.match = reply.match;
  log(sentence(`${seatName(seat)}: ${moveText(move)}`)); // ("You: …", as the log's other lines begin)
  for (const e of reply.events) {
    if (e.type === "scopa") log(`Scopa! ${sentence(teamName(e.team))} swept the table.`, true);
    else if (e.type === "table_to_last_capturer") log(`The last cards on the table go to ${teamName(e.team)}: ${e.cards.map((c) => cardName(c)).join(", ")}.`, true);
    else if (e.type === "refill" && e.seat === game.seat) log(`New cards from the stock: ${e.count} each.`);
    else if (e.type === "deal") log(sentence(`${seatName(e.seat)} deal${e.seat === game.seat ? "" : "s"} the next hand.`));
  }
  if (reply.events.some((e) => e.type === "scopa")) flash($("table"));
  if (reply.hand_over) {
    // the hand this play ended (the match has dealt the next): its final position and score
    const { position: final, score } = reply.hand_over;
    game.handOver = { final, points: score.points, score };
    await handOver(); // the score at once; the review fills in by itself
  }
}

function flash(el) {
  el.classList.remove("flash");
  void el.offsetWidth;
  el.classList.add("flash");
}

async function playCard(card) {
  // (a second click or key press on a card that is still drawn, before the hand is redrawn
  // for the computer's turn, is not a play: it read "illegal move")
  if (game.busy || !myTurn() || !game.legal.some((m) => m.startsWith(card))) return;
  const moves = game.legal.filter((m) => m.startsWith(card));
  clearChoice(); // (table cards picked for another card of the hand are not this one's)
  if (moves.length === 1) return submit(moves[0]);
  game.pendingCard = card;
  renderCaptures(card);
  markSelected();
}

function pickTableCard(card) {
  // (a table card is picked only for a capture of yours: while the computer is to play it said
  // "First choose the card of your hand that captures", a play you could not make)
  if (!myTurn()) {
    if (inPlay()) $("hint-text").textContent = WAIT_TURN;
    return;
  }
  if (game.busy) return;
  if (!game.pendingCard) {
    $("hint-text").textContent = "First choose the card of your hand that captures.";
    return;
  }
  if (!game.selected.has(card) && !takeable(game.pendingCard).has(card)) {
    // (it was picked, and nothing came of it: no capture of that card takes it)
    put($("hint-text"), `The ${cardName(game.pendingCard)} cannot take the ${cardName(card)}.`);
    return;
  }
  if (game.selected.has(card)) game.selected.delete(card);
  else game.selected.add(card);
  markSelected();
  const chosen = [...game.selected].sort().join("");
  const match = game.legal.find((m) => m.startsWith(game.pendingCard + "x") && m.slice(3).match(/../g).sort().join("") === chosen);
  if (match) submit(match);
}

// The capture choice put away: no card of the hand waiting for its captures, no table card picked.
function clearChoice() {
  game.pendingCard = null;
  game.selected.clear();
  $("captures").replaceChildren();
  markSelected();
}

// The table's cards some capture of `card` (of your hand; none: null) takes.
function takeable(card) {
  const takes = new Set();
  for (const move of game.legal) if (card && move.startsWith(card + "x")) move.slice(3).match(/../g).forEach((c) => takes.add(c));
  return takes;
}

// The cards' names and marks, as the capture being chosen stands: the table's cards picked for
// it, or not, as game.selected says (toggle buttons while a capture is being chosen, plain
// buttons otherwise), those the card chosen can take, the last card laid down; the card of
// your hand whose capture is being chosen. (Each name says what its mark shows.)
function markSelected() {
  const pending = game.pendingCard;
  const takes = takeable(pending);
  document.querySelectorAll("#table .table-card").forEach((b) => {
    const card = b.dataset.card;
    const on = game.selected.has(card);
    b.classList.toggle("selected", on);
    b.classList.toggle("takeable", takes.has(card)); // (seen as its name says it)
    if (pending) b.setAttribute("aria-pressed", on ? "true" : "false");
    else b.removeAttribute("aria-pressed");
    const states = [b.classList.contains("last") && "the last card played", takes.has(card) && `can be taken by the ${cardName(pending)}`];
    b.setAttribute("aria-label", [`${cardName(card)} on the table`, ...states.filter(Boolean)].join(", "));
  });
  document.querySelectorAll("#hand .card-button").forEach((b) => {
    const on = b.dataset.card === pending;
    b.classList.toggle("pending", on);
    b.setAttribute("aria-label", `${b.dataset.key}: ${cardName(b.dataset.card)}` + (on ? ", choosing what it takes" : ""));
  });
}

async function submit(move) {
  if (game.busy || !myTurn() || !game.legal.includes(move)) return;
  game.busy = true;
  const token = game.token;
  updateControls(); // (Undo and Hint wait for the play: a hint asked now would be of the turn played)
  // (a capture's button pressed from the keyboard goes with the choice: the focus waits on the
  // status line for the computer's turn, as it does after a card, not on the page)
  if (document.activeElement && document.activeElement.closest("#captures")) $("status").focus();
  clearChoice();
  $("hint-text").textContent = "";
  // ("Your turn" stayed up while the play was on its way to the engine)
  setStatus("waiting", `Playing the ${cardName(move.slice(0, 2))}…`);
  try {
    const before = game.match;
    await play(move, token);
    // a new match (or the page back from the back-forward cache) came while the play was on its
    // way: that goes on, not this (it drew "your turn" with the computer to move, two turns at once)
    if (token !== game.token) return;
    // (a play that failed leaves no undo)
    if (game.match !== before) game.undo.push(before);
    game.busy = false;
    if (game.handOver) await render();
    else await advance();
  } catch (err) {
    if (token !== game.token) return; // (superseded: its error is not the new match's)
    game.busy = false;
    showError(err);
  }
}

// A hand being played (a match, not over, its hand not over), and whether it is your turn in it.
function inPlay() {
  return !!game.match && game.match.winner === null && !game.handOver;
}

function myTurn() {
  return inPlay() && game.match.position.turn === game.seat;
}

// Whether the match's position is the one on screen (after a new hand or an undo the engine
// failed to draw, the last position's cards are still there).
function turnDrawn() {
  return game.drawn === game.match.position;
}

// The buttons that depend on where the match stands: Undo, Hint, the record's download.
function updateControls() {
  $("undo").disabled = !game.undo.length || game.busy;
  updateHint();
  updateDownload();
}

function updateHint() {
  // (while a hint is thought of the button stays focusable, marked unavailable: disabling it
  // would drop the keyboard focus to the page)
  $("hint").disabled = !myTurn() || game.busy || !turnDrawn(); // (a turn not drawn yet: no hint of it)
  $("hint").setAttribute("aria-disabled", game.hinting ? "true" : "false");
}

async function hint() {
  if (game.hinting || !myTurn()) return; // (one hint at a time: a second press waits for the first)
  game.hinting = true;
  updateHint();
  try {
    await giveHint();
  } finally {
    game.hinting = false;
    updateHint();
  }
}

const THINKING = "Thinking about a hint…";

async function giveHint() {
  const asked = game.match;
  // (played, undone or a new match meanwhile: the hint is stale, and so is its "Thinking", which
  // stayed up for good when a card was played while the view was asked for)
  const stale = () => {
    if (game.match === asked && !game.busy) return false;
    if ($("hint-text").textContent === THINKING) $("hint-text").textContent = "";
    return true;
  };
  const view = (await game.engine.ask({ cmd: "view", position: asked.position, seat: game.seat })).view;
  if (stale()) return;
  $("hint-text").textContent = THINKING;
  const { moves } = await game.engine.ask({ cmd: "evaluate", view, time_ms: 500 });
  if (stale()) return;
  const ranked = Object.entries(moves).sort((a, b) => b[1] - a[1]);
  // (each move's value said alike: its sign and "points"; the runner-up had neither)
  const said = ([move, value]) => `${moveText(move)} (${value >= 0 ? "+" : ""}${value.toFixed(2)} points)`;
  let text = `Hint: ${said(ranked[0])}`;
  if (ranked.length > 1) text += `; next best ${said(ranked[1])}`;
  put($("hint-text"), text);
}

async function undo() {
  if (!game.undo.length || game.busy || $("undo").disabled) return;
  supersede();
  // (disabled until the turn it goes back to is drawn: a double click took back two plays)
  $("undo").disabled = true;
  game.engine.stop(); // (the computer's move being thought of, a hint, the hand's review: dropped)
  game.match = game.undo.pop();
  game.handOver = null;
  $("hand-end").hidden = true;
  clearBoard($("review-board"));
  clearChoice(); // (a capture choice of the position undone: not this one's)
  $("hint-text").textContent = "";
  log("Undone: back to your last turn.");
  await advance();
}

// ------------------------------------------------------------------ the end of a hand

function handRecord(final, points) {
  return {
    format: "scopa-hand",
    version: 1,
    rules: final.rules,
    deal: final.history.start,
    plays: final.history.plays,
    score: points,
  };
}

const YOUR_TURN = "Your turn: click a card of your hand (or press its number).";
const WAIT_TURN = "Wait for your turn: the computer is to play.";
// The hand's points, yours first: "you 2, the computer 2".
function handPointsText(points) {
  const me = game.seat % 2;
  return `${teamName(me)} ${points[me]}, ${teamName(1 - me)} ${points[1 - me]}`;
}

// The status line for where the match stands: over, its hand over, or your turn (else unchanged).
// (the hand's points said in it: an audit found them never read out, the score table being after
// the button the focus goes to)
function showStanding() {
  if (game.match.winner !== null) setStatus("match-over", matchOverText());
  else if (game.handOver) setStatus("hand-over", `The hand is over: ${handPointsText(game.handOver.points)}. The score and the review follow.`);
  else if (myTurn()) setStatus("your-turn", YOUR_TURN);
}

async function handOver() {
  const asked = game.handOver;
  const { final, points } = asked;
  const over = game.match.winner !== null;
  await render();
  // (a hand over brought back from this browser's storage has none: asked of the engine)
  const score = asked.score || (await game.engine.ask({ cmd: "score", position: final }));
  if (game.handOver !== asked) return; // (an undo or a new match came while it was asked)
  $("score").replaceChildren(scoreTable(score));
  // the heading says the hand's points, and the match's end when it is over (it said "Hand over"
  // at the match's end too); Next hand is described by it, so the focus there reads them
  const title = `Hand over: ${handPointsText(score.points)}`;
  $("hand-end-title").textContent = over ? `Match over: ${matchResultText()}; this hand ${handPointsText(score.points)}` : title;
  $("hand-end").hidden = false;
  $("next-hand").hidden = over;
  // the status after the score is drawn: a script (or a screen reader) that finds "hand-over"
  // finds the score there (after a reload the score is asked of the engine first: a browser
  // test once read an empty score under the status)
  showStanding();
  // the focus, left on the status line (no card of yours to play), goes to what comes next:
  // Next hand, or the score's heading at the end of the match
  const at = document.activeElement;
  if (!at || at === document.body || at === $("status")) (over ? $("hand-end-title") : $("next-hand")).focus();
  const reviewing = Object.assign(document.createElement("p"), { textContent: "Reviewing…" });
  $("review").replaceChildren(reviewing);
  const record = handRecord(final, points);
  // (the review's progress, a line a play: some seconds at 100 ms a play)
  const progress = ({ done, total }) => {
    if (game.handOver === asked) reviewing.textContent = `Reviewing… ${done} of ${total} plays`;
  };
  game.engine
    .ask({ cmd: "review", record, time_ms: 100 }, progress)
    .then((review) => {
      const show = (index) => showPlay(record, index, $("review-board"));
      if (game.handOver === asked) renderReview($("review"), review, show, (s) => s === game.seat);
    })
    .catch((err) => {
      if (game.handOver === asked) $("review").textContent = `The review failed: ${err.message}`;
    });
}

// Who won the match, and by what: "The computer wins 11-4".
function matchResultText() {
  const [a, b] = game.match.scores;
  const me = game.seat % 2;
  const won = game.match.winner === me;
  const two = game.match.position.hands.length === 2;
  const who = won ? (two ? "You win" : "Your team wins") : two ? "The computer wins" : "Their team wins";
  return `${who} ${Math.max(a, b)}-${Math.min(a, b)}`;
}

function matchOverText() {
  // (Undo stays: it takes back your last play, as at a hand's end, and the match goes on)
  const undo = game.undo.length ? " (Undo takes back your last play)" : "";
  return `${matchResultText()}. Press New match to play again${undo}.`;
}

async function matchOver() {
  setStatus("match-over", matchOverText());
  await render();
}

function scoreTable(score) {
  const t = document.createElement("table");
  const me = game.seat % 2;
  const cols = [me, 1 - me];
  const head = t.insertRow();
  for (const text of ["Category", sentence(teamName(me)), sentence(teamName(1 - me))]) head.append(Object.assign(document.createElement("th"), { textContent: text, scope: "col" }));
  // (each row's category is its header: a screen reader says "coins, you" with a cell's points)
  const rowHead = (r, text) => r.append(put(Object.assign(document.createElement("th"), { scope: "row" }), text));
  const c = score.categories;
  const detail = (name, key) => (c[name] && c[name][key] ? c[name][key] : null);
  const rows = [
    ["Cards", "carte", detail("carte", "cards")],
    [sentence(COINS[game.deck][0]), "denari", detail("denari", "coins")],
    ["Primiera", "primiera", detail("primiera", "totals")],
    ["Settebello", "settebello", null],
    ["Scope", "scope", null],
  ];
  if (c.re_bello) rows.push(["Re bello", "re_bello", null]);
  if (c.napola) rows.push(["Napola", "napola", null]);
  for (const [label, key, counts] of rows) {
    const r = t.insertRow();
    rowHead(r, label);
    for (const col of cols) {
      const pts = c[key].points[col];
      r.insertCell().textContent = counts ? `${pts} (${counts[col] === null ? "-" : counts[col]})` : `${pts}`;
    }
  }
  const total = t.insertRow();
  rowHead(total, "Total");
  for (const col of cols) total.insertCell().textContent = `${score.points[col]}`;
  return t;
}

// `show(index)` shows the position before play `index` of the hand reviewed (a promise).
function renderReview(box, review, show, mine, name = seatName) {
  box.replaceChildren();
  const rows = review.plays.filter((p) => mine(p.seat));
  const t = document.createElement("table");
  const head = t.insertRow();
  const heads = ["Play", "Move", "Best", "Loss", "Mark", "Position"];
  for (const text of heads) head.append(Object.assign(document.createElement("th"), { textContent: text }));
  for (const p of rows) {
    const r = t.insertRow();
    r.dataset.play = p.play;
    r.dataset.move = p.move; // the notation, for scripts; people read the card names
    r.insertCell().textContent = `${p.play + 1}`;
    put(r.insertCell(), moveText(p.move));
    if (p.reviewed === false) {
      // the review's time ran out before this play: nothing is known of it
      r.insertCell().textContent = "not reviewed";
      r.insertCell().textContent = "-";
    } else {
      put(r.insertCell(), p.best === p.move ? "the same" : moveText(p.best));
      r.insertCell().textContent = p.loss.toFixed(2) + (p.dd_loss === null ? "" : ` (exact ${p.dd_loss})`);
    }
    const mark = r.insertCell();
    if (p.mark) {
      // (a screen reader at its default punctuation skips "?": the mark's word is said, and a
      // pointer's tooltip says it too)
      const word = p.mark === "??" ? "blunder" : "mistake";
      const abbr = Object.assign(document.createElement("abbr"), { textContent: p.mark, title: word });
      mark.append(abbr, Object.assign(document.createElement("span"), { className: "visually-hidden", textContent: ` ${word}` }));
      mark.className = "mark-bad";
    }
    if (p.reason) mark.append(" ", ...textNodes(p.reason)); // ("left a scopa")
    const b = document.createElement("button");
    b.type = "button";
    b.textContent = "Show";
    b.setAttribute("aria-label", `Show the position at play ${p.play + 1}`);
    b.addEventListener("click", () => show(p.play).catch(showError));
    r.insertCell().append(b);
  }
  // on a phone each play is a block, its cells one under the other and each named by its
  // column (data-label, style.css: an accessibility audit found the loss and the mark off the
  // screen at 360 px, and the best move under the Show buttons' column); the table's roles said
  // as well, kept whatever the table's display
  t.setAttribute("role", "table");
  t.tBodies[0].setAttribute("role", "rowgroup");
  for (const row of t.rows) {
    row.setAttribute("role", "row");
    [...row.cells].forEach((cell, i) => {
      cell.setAttribute("role", cell.tagName === "TH" ? "columnheader" : "cell");
      if (cell.tagName === "TD") cell.dataset.label = heads[i];
    });
  }
  // the points each seat lost in these plays (one hand's): the review's own summary is the record's
  const lost = review.summary.seats.map(() => 0);
  for (const q of review.plays) if (q.reviewed !== false) lost[q.seat] += q.loss;
  const p = document.createElement("p");
  if (!rows.length) p.textContent = "No plays to review.";
  else if (review.plays.every((q) => q.reviewed === false)) p.textContent = "No play was reviewed: the server's time for a review ran out.";
  else p.textContent = `Points lost in this hand: ${lost.map((x, i) => `${name(i)} ${x.toFixed(2)}`).join(", ")}.`;
  box.append(t, p);
}

// The position before play `index` of a hand (after its last play when index is the count of plays).
// (the position asked last of a board is the one it shows: one asked before it, further into the
// hand, is longer to replay and came after it)
const boardAsked = new WeakMap();
// A hand record's positions replayed so far, by play (positions.get(record)[i] is the position
// before play i): a step of a replay or a review asks one play of the engine, not the whole hand
// again (an audit: a slow connection took 28 s a step on a hand of 36 plays)
const positions = new WeakMap();
async function showPlay(record, index, board, name = seatName) {
  const asked = {};
  boardAsked.set(board, asked);
  if (!positions.has(record)) positions.set(record, [record.deal]);
  const known = positions.get(record);
  while (known.length <= index) {
    const i = known.length - 1;
    const { position } = await game.engine.ask({ cmd: "play", position: known[i], move: record.plays[i] });
    if (known.length === i + 1) known.push(position); // (another step may have asked it meanwhile)
    if (boardAsked.get(board) !== asked) return; // (only an await lets a later ask come in)
  }
  const position = known[index];
  const title = index < record.plays.length ? `Before play ${index + 1} (${moveText(record.plays[index])}):` : "After the last play:";
  board.replaceChildren(drawFull(position, title, name));
  // (on a phone the board is far below the table's row: it comes into view)
  board.scrollIntoView({ block: "nearest", behavior: $("animate").checked ? "smooth" : "auto" });
}

// A board that shows no position, and none asked for it before shows up later (Next hand, Undo, a
// new match: an earlier hand's position stayed under the next hand's end).
function clearBoard(board) {
  boardAsked.set(board, {});
  board.replaceChildren();
}

// A position with every hand face up: for replays and reviews, after the hand.
function drawFull(position, title, name = seatName) {
  const wrap = document.createElement("div");
  const h = document.createElement("p");
  put(h, title);
  wrap.append(h);
  if (typeof position === "string") {
    const fields = position.split(" ");
    position = {
      hands: fields[1].split("/").map((x) => (x === "-" ? [] : x.match(/../g))),
      table: fields[2] === "-" ? [] : fields[2].match(/../g),
    };
  }
  position.hands.forEach((cards, seat) => {
    const row = document.createElement("div");
    row.className = "mini";
    row.setAttribute("role", "group");
    row.setAttribute("aria-label", /^you$/i.test(name(seat)) ? "Your hand" : sentence(`${name(seat)}'s hand`));
    row.append(`${sentence(name(seat))}: `);
    for (const c of cards) row.append(cardImage(c));
    wrap.append(row);
  });
  const table = document.createElement("div");
  table.className = "mini";
  table.append("Table: ");
  for (const c of position.table) table.append(cardImage(c));
  wrap.append(table);
  return wrap;
}

// ------------------------------------------------------------------ records

// The record to download is the engine's (match_record: records own the format), asked again
// whenever the match changes; the link leads to the latest answer only.
function recordTags() {
  // (the date where the player is: toISOString's is UTC's, a day off in the evening west of it)
  const now = new Date();
  const date = [now.getFullYear(), now.getMonth() + 1, now.getDate()].map((n) => String(n).padStart(2, "0")).join(".");
  const tags = { Event: "scopa serve", Date: date };
  game.match.position.hands.forEach((_, seat) => (tags[`Player${seat}`] = seat === game.seat ? "You" : `Computer (${game.player})`));
  return tags;
}

let downloadUrl = null;
let downloadFor = null; // the match whose record the link holds, or is asked for
async function updateDownload() {
  const m = game.match;
  if (m === downloadFor) return;
  downloadFor = m;
  let text = null;
  let failed = false;
  // (a new match before its first play: no record yet; the engine gone: no link until it is back)
  if (m && (m.hands.length || (m.position.history && m.position.history.plays.length))) {
    try {
      const { record } = await game.engine.ask({ cmd: "match_record", match: m, tags: recordTags() });
      text = JSON.stringify(record, null, 1);
    } catch (err) {
      failed = true;
    }
  }
  if (downloadFor !== m) return; // (a later match's record is asked, or its ask failed)
  if (failed) downloadFor = null; // (asked again at the next update)
  const a = $("download");
  if (downloadUrl) URL.revokeObjectURL(downloadUrl);
  downloadUrl = text ? URL.createObjectURL(new Blob([text], { type: "application/json" })) : null;
  // (no record: not a link, so not in the tab order either)
  if (downloadUrl) a.href = downloadUrl;
  else a.removeAttribute("href");
  a.setAttribute("aria-disabled", text ? "false" : "true");
  a.dataset.plays = text ? String(countPlays(m)) : "";
}

// the plays of the match so far (every hand's): what the link's record holds, for a script to wait on
function countPlays(m) {
  const current = m.position.history ? m.position.history.plays.length : 0;
  return m.hands.reduce((n, h) => n + h.plays.length, 0) + (m.winner === null ? current : 0);
}

const replay = { hands: [], hand: 0, step: 0, name: (seat) => `seat ${seat}`, loading: 0 };

async function loadRecord(file) {
  // (a file chosen while the one before is still checked supersedes it: its answer, later, was
  // shown over the newer file's)
  const load = ++replay.loading;
  const text = await file.text();
  if (load !== replay.loading) return;
  let record;
  try {
    record = JSON.parse(text);
  } catch (err) {
    $("replay").hidden = false;
    putReplayAway();
    $("replay-title").textContent = `Not a record: ${err.message}`;
    return;
  }
  $("replay").hidden = false;
  $("replay-title").textContent = "Checking the record…";
  try {
    const review = await reviewOverHttp(text, engine.timeMs(50));
    if (load !== replay.loading) return;
    const hands = record.format === "scopa-hand" ? [record] : record.hands;
    if (!hands.length) {
      putReplayAway(); // (the record loaded before: not stepped through under this one's title)
      $("replay-title").textContent = "The record holds no hand to replay.";
      return;
    }
    replay.hands = hands;
    replay.hand = 0;
    replay.step = 0;
    $("replay-title").textContent = `A record of ${hands.length} ${hands.length === 1 ? "hand" : "hands"}, ${review.plays.length} plays. Step through it:`;
    const tags = record.tags || {};
    replay.name = (seat) => tags[`Player${seat}`] || `seat ${seat}`;
    const boxes = hands.map((hand, h) => {
      const box = document.createElement("div");
      const plays = review.plays.filter((p) => p.hand === h);
      // (a play shown from the review is where Previous and Next play go on from: they went on
      // from the step shown before it)
      const show = (index) => {
        Object.assign(replay, { hand: h, step: index });
        return showReplay();
      };
      renderReview(box, { ...review, plays }, show, () => true, replay.name);
      if (hands.length > 1) box.prepend(Object.assign(document.createElement("h3"), { textContent: `Hand ${h + 1}` }));
      return box;
    });
    $("replay-review").replaceChildren(...boxes);
    await showReplay();
  } catch (err) {
    if (load !== replay.loading) return;
    putReplayAway();
    $("replay-title").textContent = `The record was refused: ${err.message}`;
  }
}

// The record shown before, if any, put away (a file refused): its buttons would step through it.
function putReplayAway() {
  Object.assign(replay, { hands: [], hand: 0, step: 0 });
  $("replay-board").replaceChildren();
  $("replay-review").replaceChildren();
  stepUsable($("replay-prev"), false);
  stepUsable($("replay-next"), false);
}

// A replay's Previous or Next play, usable or not. Marked unavailable (aria-disabled), not
// disabled: the button keeps the focus at either end of the record, and a key held on it (Enter
// on Next play) stops there (disabled, it handed the focus to the other button, and the held key
// went on pressing that one: the replay ran backwards; an accessibility audit). Pressed while it
// is unavailable it does nothing (replayStep).
function stepUsable(button, usable) {
  button.setAttribute("aria-disabled", usable ? "false" : "true");
}

// A loaded record is reviewed over POST /api, not the game's WebSocket: a record too large for the
// server is refused there with its reason (HTTP 413), and the game's connection stays open.
async function reviewOverHttp(recordText, time_ms) {
  // the record goes as its file's own JSON text (JSON.parse read it), not re-written from what
  // JSON.parse made of it: the engine then sees it as written (a key given twice is refused)
  const body = `{"cmd":"review","time_ms":${JSON.stringify(time_ms)},"record":${recordText}}`;
  let response;
  try {
    response = await fetch("api", { method: "POST", headers: { "Content-Type": "application/json" }, body });
  } catch (err) {
    throw new Error(`cannot reach the engine: is scopa serve running? (${err.message})`);
  }
  const reply = await response.json().catch(() => ({ error: { message: `HTTP ${response.status}` } }));
  if (reply.error) throw Object.assign(new Error(reply.error.message), { type: reply.error.type });
  return reply;
}

async function showReplay() {
  // every hand of the record in turn: after the last play of a hand, Next goes to the next hand
  const hand = replay.hands[replay.hand];
  stepUsable($("replay-prev"), false); // (until this step is drawn)
  stepUsable($("replay-next"), false);
  await showPlay(hand, replay.step, $("replay-board"), replay.name);
  const last = replay.hand === replay.hands.length - 1;
  stepUsable($("replay-prev"), !(replay.step === 0 && replay.hand === 0));
  stepUsable($("replay-next"), !(replay.step >= hand.plays.length && last));
}

function replayStep(delta) {
  if ($(delta > 0 ? "replay-next" : "replay-prev").getAttribute("aria-disabled") === "true") return;
  const plays = replay.hands[replay.hand].plays.length;
  if (delta > 0 && replay.step >= plays) {
    replay.hand += 1;
    replay.step = 0;
  } else if (delta < 0 && replay.step === 0) {
    replay.hand -= 1;
    replay.step = replay.hands[replay.hand].plays.length;
  } else replay.step += delta;
  showReplay().catch(showError);
}

// ------------------------------------------------------------------ wiring

// Whether the focus is nowhere in particular: on the page itself, the status line (where it
// rests between turns) or the main region (where the skip link leaves it), so the hand's keys go
// to the hand.
function nowhereInParticular(el) {
  return el === document.body || el === $("status") || el === $("main");
}

function keys(e) {
  if (e.target.closest("input, select, textarea") || e.ctrlKey || e.altKey || e.metaKey) return;
  // a key held down is one press: its repeats played card after card, turn after turn (Enter
  // on a focused card too: the focus comes back to your first card at your next turn)
  if (e.repeat && (/^[0-9]$/.test(e.key) || (e.key === "Enter" && e.target.closest("#hand, #captures, #table")))) {
    e.preventDefault();
    return;
  }
  const hand = [...document.querySelectorAll("#hand .card-button")];
  if (e.key === "Escape" && game.pendingCard) {
    // the capture choice put away: back to the card of your hand it was for
    const card = game.pendingCard;
    clearChoice();
    (hand.find((b) => b.dataset.card === card) || $("status")).focus();
    e.preventDefault();
    return;
  }
  if (/^[0-9]$/.test(e.key)) {
    // (from the hand, the table, the status line or nowhere in particular only: an accessibility
    // audit pressed 2 on a replay's Next play button and played a card of the live match; WCAG
    // 2.1.4, a character key's shortcut active only where it belongs)
    const where = document.activeElement;
    if (where && !nowhereInParticular(where) && !where.closest("#hand, #table, #captures")) return;
    const i = e.key === "0" ? 9 : parseInt(e.key, 10) - 1;
    if (hand[i] && !hand[i].disabled) {
      e.preventDefault();
      hand[i].click();
    }
  } else if ((e.key === "ArrowRight" || e.key === "ArrowLeft") && hand.length) {
    const i = hand.indexOf(document.activeElement);
    // (from the hand, or from nowhere in particular: not from the capture choice or a replay's buttons)
    if (i < 0 && !nowhereInParticular(document.activeElement)) return;
    const next = i < 0 ? 0 : (i + (e.key === "ArrowRight" ? 1 : hand.length - 1)) % hand.length;
    hand[next].focus();
    e.preventDefault();
  }
}

// A lost connection: the page reconnects by itself, every RETRY_MS for RECONNECT_MS (as
// /engine.js asks a request lost with its connection again), then leaves it to the next action.
const RECONNECTING = "The connection to the engine was lost: reconnecting…";
const RECONNECT_MS = 5000;
const RETRY_MS = 200;
let reconnecting = null;
function reconnect() {
  reconnecting =
    reconnecting ||
    (async () => {
      const deadline = performance.now() + RECONNECT_MS;
      while (engine.lost && !game.away && performance.now() < deadline) {
        try {
          await engine.connect();
        } catch {
          await new Promise((ok) => setTimeout(ok, RETRY_MS));
        }
      }
      reconnecting = null;
      // (given up: unless something else has been said since, an error of its own)
      if (engine.lost && $("status").textContent === RECONNECTING) {
        setStatus("error", "The connection to the engine was lost, and the page could not reconnect: your next action tries again.");
      }
    })();
}

// The player list, from the server's hello: once, at the page's start (or at the first action
// after a start the engine failed; a second call while the first waits shares it).
let greeting = null;
function greet() {
  greeting = greeting || fillPlayers().catch((err) => {
    greeting = null;
    throw err;
  });
  return greeting;
}

// The Computer menu's players, in words a player reads (docs/players.md says how each plays);
// the option's value stays the engine's name, and a name the server sends that is not here is
// shown as it is.
const PLAYER_TEXTS = {
  random: "Random: plays any legal card",
  greedy: "Greedy: a club player's rules, one play ahead",
  pimc: "PIMC: samples the hidden cards",
  ismcts: "ISMCTS: searches a tree of plays",
};

function playerText(name) {
  return Object.hasOwn(PLAYER_TEXTS, name) ? PLAYER_TEXTS[name] : name;
}

async function fillPlayers() {
  await engine.connect();
  const hello = engine.hello;
  const select = $("difficulty");
  const groups = [
    ["Levels", hello.levels || [], (n) => `Level ${n.slice(5)}` + ({ level1: " (beginner)", level6: " (strongest)" }[n] || "")],
    ["Players", hello.players, playerText],
  ];
  for (const [label, names, text] of groups) {
    if (!names.length) continue;
    const group = document.createElement("optgroup");
    group.label = label;
    for (const name of names) group.append(Object.assign(document.createElement("option"), { value: name, textContent: text(name) }));
    select.append(group);
  }
  select.value = [...select.options].some((o) => o.value === "level4") ? "level4" : select.options[0].value;
  game.greeted = true;
}

// The page's start: the player list, then the match saved in this browser goes on, if there is one.
async function start() {
  const token = game.token;
  await greet();
  // (New match pressed while the page started: that match is the one played, not the saved one,
  // which came back over it, the menu set back to its game)
  if (token !== game.token) return;
  // (a start the engine failed, tried again: its error and button give way; CI found the button
  // left up, and pressed again it went on with no match)
  const pressed = document.activeElement === $("go-on");
  $("go-on").hidden = true;
  if ($("status").dataset.state === "error") setStatus("idle", "Choose a game and press New match.");
  const saved = savedMatch([...(engine.hello.levels || []), ...engine.hello.players]);
  if (saved) await resumeMatch(saved);
  // the button pressed hid itself: with no match to go on with, the focus goes to the first
  // choice of a new one (not dropped to the page)
  else if (pressed && document.activeElement === document.body) $("game").focus();
}

// The status line's height, for the page's scroll-padding (style.css): what has the focus is
// scrolled clear of it, the status line staying in view at the top of the window.
function keepStatusHeight() {
  const status = $("status");
  const keep = () => document.documentElement.style.setProperty("--status-height", `${status.offsetHeight}px`);
  keep();
  if (window.ResizeObserver) new ResizeObserver(keep).observe(status);
}

function main() {
  game.engine = engine;
  loadAnimate();
  keepStatusHeight();
  $("new-game").addEventListener("click", () => newMatch().catch(showError));
  document.querySelector('#house-rules input[data-option="ace_takes_all"]').addEventListener("change", syncHouseRules);
  syncHouseRules(); // (a reload may bring back the boxes as they were ticked)
  describeHouseRules(); // (and the deck as it was chosen)
  $("deck").addEventListener("change", () => describeHouseRules());
  // Enter in the points field submits the form (its one text field): a New match, not the page
  // reloaded at "/?" (the seed, the points typed and a loaded record lost)
  $("setup").addEventListener("submit", (e) => {
    e.preventDefault();
    newMatch().catch(showError);
  });
  $("next-hand").addEventListener("click", async () => {
    if (!game.handOver) return; // (pressed twice)
    game.handOver = null;
    game.undo = [];
    game.engine.stop(); // (the review of the hand left, if it is still thought of: dropped)
    // (the button hides itself: the focus waits on the status line, not on the page, until the
    // next hand is drawn)
    if ($("hand-end").contains(document.activeElement)) $("status").focus();
    $("hand-end").hidden = true;
    clearBoard($("review-board"));
    await advance().catch(showError);
  });
  $("hint").addEventListener("click", () => hint().catch(showError));
  // (a start the engine failed is tried again from it: the page had nothing else to go on from)
  $("go-on").addEventListener("click", () => (game.greeted && game.match ? advance() : start()).catch(showError));
  $("undo").addEventListener("click", () => undo().catch(showError));
  $("show-played").addEventListener("click", () => {
    const p = $("played");
    p.hidden = !p.hidden;
    $("show-played").setAttribute("aria-expanded", p.hidden ? "false" : "true");
  });
  $("load").addEventListener("change", (e) => {
    const file = e.target.files[0];
    // (emptied, so that the same file chosen again, corrected or after a server restart, is
    // loaded again: the browser says nothing of a choice that did not change)
    e.target.value = "";
    if (file) loadRecord(file).catch(showError);
  });
  $("replay-prev").addEventListener("click", () => replayStep(-1));
  $("replay-next").addEventListener("click", () => replayStep(1));
  $("download").addEventListener("click", (e) => {
    if ($("download").getAttribute("aria-disabled") === "true") e.preventDefault(); // no match yet
  });
  engine.onlost = () => {
    // (the connection the page had when it went into the back-forward cache is closed under it,
    // and its close comes after the page is shown again: no word of it, the next action reconnects)
    if (engine.ws === game.cachedWs || game.away) return;
    // the page reconnects by itself (a request lost with it is asked again meanwhile): the status
    // says so while it does, and what is left to do once it stops trying (an accessibility audit:
    // it said "your next action reconnects" while the page was reconnecting)
    if (!game.busy) setStatus("error", RECONNECTING);
    reconnect();
  };
  // connected again (by itself, a hint, a play): the lost connection's word gives way to where
  // the match is (not while Reconnect and go on waits: pressed, it says where the match is)
  engine.onback = () => {
    if ($("status").dataset.state !== "error" || !game.match || !$("go-on").hidden) return;
    showStanding();
    // (the computer to move: its move, asked again on the new connection, is being thought of)
    if ($("status").dataset.state === "error" && inPlay() && !myTurn() && !game.busy) {
      setStatus("waiting", sentence(`${seatName(game.match.position.turn)} is thinking…`));
    }
  };
  // Back and Forward may keep the page (the back-forward cache), its connection closed: when
  // it comes back the match goes on where it was, without the lost connection's word
  // The page closes its connection as it goes: a browser keeps no page with an open WebSocket
  // in that cache (Chromium 150 names the reason "websocket"; earlier ones closed it themselves),
  // and a request it had in flight is asked again on a new one when the page comes back.
  window.addEventListener("pagehide", () => {
    Object.assign(game, { away: true, cachedWs: engine.ws });
    if (engine.ws) engine.ws.close();
  });
  window.addEventListener("pageshow", (e) => {
    if (!e.persisted) return;
    game.away = false;
    // (a computer's turn asked before the page left may still be asked again, its connection
    // closed: superseded, so that two turns are not played from one position; a play of yours
    // on its way too)
    supersede();
    if (inPlay()) advance().catch(showError);
  });
  // another tab of this page saved its match over this one's (one match per browser and
  // address): said once, until this tab saves again (drawn, its match is the one kept)
  window.addEventListener("storage", (e) => {
    if (e.key !== SAVED || e.newValue === null || !game.match || game.match.winner !== null || game.savedElsewhere) return;
    game.savedElsewhere = true;
    log("Another tab saved its match in this browser: a reload brings back the match of the tab played last.");
  });
  $("animate").addEventListener("change", keepAnimate);
  // the skip link: the focus to the main region, past the New match form (the address keeps no
  // #main, which a reload would scroll to)
  $("skip").addEventListener("click", (e) => {
    e.preventDefault();
    $("main").focus();
  });
  document.addEventListener("keydown", keys);
  updateDownload();
  start().catch(showError);
}

main();
