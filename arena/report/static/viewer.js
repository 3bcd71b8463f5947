// arena replay viewer: steps through one game, from everyone's view or from one seat's.
// The game's data comes from replays/pack-<n>.js (each replay file's gzip bytes in base64, set
// on window.ARENA_REPLAY) and replays/chances/pack-<n>.js (the pack's game ids, and each
// game's chances that a claim holds, computed by the report: arena.report.chances), so the
// page works from file:// with no fetch. No framework.
(function () {
  "use strict";

  const $ = (id) => document.getElementById(id);
  const SUITS = { c: "♣", d: "♦", h: "♥", s: "♠" };
  const RED_SUITS = new Set(["d", "h"]);
  const NEW_STEP_EVENTS = new Set(["round", "central"]);
  const PLAY = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M7 5v14l11-7z"/></svg>' +
    "<span>Play</span>";
  const PAUSE = '<svg viewBox="0 0 24 24" aria-hidden="true"><path d="M6 5h4v14H6zM14 5h4v14h-4z"/>' +
    "</svg><span>Pause</span>";

  // What the built-in rule sets are (arena.rules.base.Description); the report writes every
  // rule set's description, a plugin's too, to viewer-rules.js (window.ARENA_RULES).
  const BUILT_IN = {
    dice: { hand: "dice", central: false, score_word: "penalty points" },
    "dice-cards": { hand: "cards", central: false, score_word: "penalty points" },
    cards: { hand: "cards", central: true, score_word: "chips" },
  };

  function describe(id) {
    return (window.ARENA_RULES || {})[id] || BUILT_IN[id] || null;
  }

  function scoreUnit(desc) {
    return desc.score_word.split(" ").pop();
  }

  let game = null; // {header, result, steps}
  let step = 0;
  let view = null; // null: everyone; else a seat number
  let timer = null;
  let pack = "0";
  let gameId = "";
  let back = null; // the report's address to go back to (&back=), or null
  let speed = 1;
  let neighbours = { prev: null, next: null }; // {id, pack} of the games beside this one
  const SPEEDS = ["0.5", "1", "2", "4"];

  // --- loading ---------------------------------------------------------------------------

  function params() {
    const hash = new URLSearchParams(location.hash.replace(/^#/, ""));
    return {
      id: hash.get("game"), pack: hash.get("pack"), view: hash.get("view"),
      step: hash.get("step"), fault: hash.get("fault"), back: hash.get("back"),
      speed: hash.get("speed"),
    };
  }

  function fail(text) {
    const message = $("message");
    message.textContent = text;
    message.className = "message error";
    message.hidden = false;
    $("game").hidden = true;
  }

  function loadScript(src) {
    return new Promise((resolve, reject) => {
      const script = document.createElement("script");
      script.src = src;
      script.onload = resolve;
      script.onerror = () => reject(new Error("cannot load " + src));
      document.head.appendChild(script);
    });
  }

  async function unpack(base64) {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    if (typeof DecompressionStream === "undefined") {
      throw new Error("this browser cannot unpack replays (no DecompressionStream); " +
        "use a current Chrome, Edge, Firefox or Safari, or `arena replay FILE` in a terminal");
    }
    const stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
    return new Response(stream).text();
  }

  async function load() {
    const wanted = params();
    if (!wanted.id || !/^\d+$/.test(wanted.pack || "")) {
      fail("No game chosen. Open a game from the report (report.html).");
      return;
    }
    back = wanted.back;
    if (back !== null) $("back").href = "report.html#" + back;
    const file = packFile(wanted.pack);
    try {
      await loadScript("viewer-rules.js");
    } catch (error) {
      // a folder whose report was built before viewer-rules.js: the built-in descriptions
    }
    try {
      await loadScript(file);
    } catch (error) {
      fail("The replay of game " + wanted.id + " is not here (" + file + "). " +
        "Build the report again with `arena report RESULTS_DIR`.");
      return;
    }
    const packed = (window.ARENA_REPLAY || {})[wanted.id];
    if (packed === undefined) {
      fail("Game " + wanted.id + " is not in " + file + ". " +
        "Build the report again with `arena report RESULTS_DIR`.");
      return;
    }
    pack = wanted.pack;
    gameId = wanted.id;
    const ids = await packIds(pack);
    let lines;
    let seed;
    try {
      const text = await unpack(packed);
      const raw = text.split("\n").filter((line) => line.trim());
      // Seeds are 64-bit: read the header's seed as text, not as a (rounded) JS number.
      seed = (raw[0].match(/"seed":(\d+)/) || [null, "?"])[1];
      lines = raw.map((line) => JSON.parse(line));
    } catch (error) {
      fail("Cannot read the replay of game " + wanted.id + ": " + error.message);
      return;
    }
    if (!describe(lines[0].rules.id)) {
      fail("The rule set " + lines[0].rules.id + " of game " + wanted.id + " is not described " +
        "here (viewer-rules.js). Build the report again with `arena report RESULTS_DIR`.");
      return;
    }
    game = prepare(lines, seed, (window.ARENA_CHANCES || {})[wanted.id] || null);
    const seat = wanted.view === null || wanted.view === "all" ? null : Number(wanted.view);
    view = seat !== null && seat >= 0 && seat < game.header.entrants.length ? seat : null;
    step = Math.min(Math.max(0, Number(wanted.step) || 0), game.steps.length - 1);
    const fault = wanted.fault === null ? NaN : Number(wanted.fault);
    if (Number.isInteger(fault) && fault >= 0 && fault < game.faults.length) {
      step = game.faults[fault];
    }
    if (SPEEDS.includes(wanted.speed)) speed = Number(wanted.speed);
    start();
    findNeighbours(ids);
  }

  function packFile(number) {
    return "replays/pack-" + String(number).padStart(5, "0") + ".js";
  }

  // The game ids of a pack, in games.jsonl order, from its chances file (written by the
  // report beside the pack); a report without it: the pack's own order.
  async function packIds(number) {
    try {
      await loadScript("replays/chances/pack-" + String(number).padStart(5, "0") + ".js");
      return window.ARENA_PACK_IDS || [];
    } catch (error) {
      return String(number) === pack ? Object.keys(window.ARENA_REPLAY || {}) : [];
    }
  }

  // The previous and next games of games.jsonl, across packs: a pack's edge looks at the
  // pack before or after (its ids only: a few KB).
  async function findNeighbours(ids) {
    const here = ids.indexOf(gameId);
    if (here < 0) return;
    const number = Number(pack);
    if (here > 0) neighbours.prev = { id: ids[here - 1], pack: pack };
    if (here < ids.length - 1) neighbours.next = { id: ids[here + 1], pack: pack };
    if (here === 0 && number > 0) {
      const before = await packIds(number - 1);
      if (before.length) neighbours.prev = { id: before[before.length - 1], pack: String(number - 1) };
    }
    if (here === ids.length - 1) {
      const after = await packIds(number + 1);
      if (after.length) neighbours.next = { id: after[0], pack: String(number + 1) };
    }
    drawGames();
  }

  function drawGames() {
    $("prev-game").disabled = neighbours.prev === null;
    $("next-game").disabled = neighbours.next === null;
    for (const [key, label] of [["prev", "Previous"], ["next", "Next"]]) {
      const to = neighbours[key];
      $(key + "-game").title = label + " game in the games list (" + label[0] + ")" +
        (to ? ": " + to.id : ": none");
    }
  }

  function openGame(to) {
    if (!to) return;
    const keep = (view === null ? "" : "&view=" + view) +
      (back === null ? "" : "&back=" + encodeURIComponent(back)) +
      (speed === 1 ? "" : "&speed=" + speed);
    location.hash = "#game=" + encodeURIComponent(to.id) + "&pack=" + to.pack + keep;
  }

  // --- steps: one per decision, plus one per new round or central hand --------------------

  // chances: the report's {d: [step from the last decision, 3 x thousandths + kind, ...],
  // t: decision} (arena.report.chances.viewer_data; kind 0 a response, 1 a claim, 2 a
  // bluff), decisions counted over the replay's action lines.
  function prepare(lines, seedText, chances) {
    const header = lines[0];
    header.seedText = seedText;
    const result = lines[lines.length - 1];
    const steps = [{ seat: null, entry: null, events: [], chance: null }];
    const byDecision = new Map();
    const flat = (chances && chances.d) || [];
    for (let i = 0, at = -1; i + 1 < flat.length; i += 2) {
      at += flat[i];
      const kind = flat[i + 1] % 3;
      byDecision.set(at, { thousandths: (flat[i + 1] - kind) / 3, claim: kind > 0, bluff: kind === 2 });
    }
    const faults = [];
    let turning = null;
    let decision = -1;
    for (const entry of lines.slice(1, -1)) {
      let current = steps[steps.length - 1];
      if (entry.type === "action" || entry.type === "fault") {
        const made = { seat: entry.seat, entry: entry, events: [], chance: null };
        if (entry.type === "action") {
          decision += 1;
          const found = byDecision.get(decision);
          if (found) made.chance = Object.assign({ seat: entry.seat, decision: decision }, found);
          if (chances && chances.t === decision) turning = steps.length;
        } else {
          faults.push(steps.length);
        }
        steps.push(made);
        if (entry.type === "fault") {
          steps[steps.length - 1].events.push({
            kind: "fault", seat: entry.seat, fault: entry.kind, message: entry.message,
            trace: Array.isArray(entry.trace) ? entry.trace.slice(-4) : [],
          });
        }
      } else if (entry.type === "event") {
        if (NEW_STEP_EVENTS.has(entry.event.kind) && current.entry !== null) {
          current = { seat: null, entry: null, events: [], chance: null };
          steps.push(current);
        }
        current.events.push(entry.event);
      }
    }
    return { header: header, result: result, steps: steps, faults: faults, turning: turning };
  }

  // --- the table as one view saw it ------------------------------------------------------

  function visible(event) {
    return event.to === undefined || event.to === null || view === null || event.to === view;
  }

  function fresh(header) {
    const n = header.entrants.length;
    const desc = describe(header.rules.id);
    const cards = desc.central;
    const chips = header.options && header.options.chips !== undefined ? header.options.chips : 10;
    return {
      n: n,
      rules: header.rules.id,
      desc: desc,
      scores: new Array(n).fill(cards ? chips : 0),
      active: new Array(n).fill(true),
      outReason: new Array(n).fill(null),
      notes: new Array(n).fill(""),
      faulted: new Array(n).fill(false),
      hands: new Array(n).fill(null),
      marked: [], // positions of the cup or central hand changed at this step (rerolled...)
      handMarked: new Array(n).fill(null), // ... of a seat's own cards (cards: swapped)
      round: 0,
      thrower: null,
      holder: null,
      claim: null,
      cup: null,
      central: null,
      faceUp: null,
      pile: null,
      verdict: null,
      over: false,
    };
  }

  function nextActive(state, seat) {
    for (let k = 1; k <= state.n; k++) {
      const candidate = (seat + k) % state.n;
      if (state.active[candidate]) return candidate;
    }
    return seat;
  }

  const unknown = () => [null, null, null, null, null];

  function apply(state, e) {
    const cardsGame = state.desc.central;
    switch (e.kind) {
      case "round":
        Object.assign(state, {
          round: e.round, thrower: e.seat, holder: e.seat, claim: null, cup: unknown(),
          verdict: null,
        });
        state.notes.fill("");
        break;
      case "roll": case "draw": case "deal":
        if (cardsGame) state.hands[e.seat] = e.hand;
        else state.cup = e.hand.slice();
        if (e.positions) state.marked = e.positions.slice();
        break;
      case "see":
        if (e.central) state.central = e.central.slice();
        else state.cup = e.hand.slice();
        break;
      case "look":
        state.holder = e.seat;
        state.notes[e.seat] = cardsGameWord(state, "looked", "picked up the cards");
        break;
      case "reroll":
        state.notes[e.seat] = noteAdd(state.notes[e.seat], rerollText(state, e.count));
        if (e.count > 0 && view !== e.seat) state.cup = unknown();
        break;
      case "reshuffle":
        break;
      case "claim":
        state.claim = { text: e.claim, seat: e.seat, blind: e.blind };
        if (e.blind) state.notes[e.seat] = "passed blind";
        state.holder = nextActive(state, e.seat);
        break;
      case "challenge":
        state.verdict = {
          kind: "challenge", seat: e.seat, claimant: e.claimant, claim: e.claim,
          hand: e.hand, value: e.value, holds: e.holds, loser: null, paid: null,
        };
        if (cardsGame) { state.central = e.hand.slice(); state.faceUp = e.hand.slice(); }
        else state.cup = e.hand.slice();
        state.holder = null;
        break;
      case "point":
        state.scores[e.seat] = e.points;
        if (state.verdict) state.verdict.loser = e.seat;
        break;
      case "out":
        state.active[e.seat] = false;
        state.outReason[e.seat] = e.reason;
        if (cardsGame && e.reason === "forfeit") state.scores[e.seat] = 0;
        break;
      case "penalty":
        state.notes[e.seat] = noteAdd(state.notes[e.seat], "penalised (fault " + e.faults + ")");
        break;
      case "fault":
        state.faulted[e.seat] = true;
        state.notes[e.seat] = "FAULT " + e.fault;
        break;
      case "over":
        state.over = true;
        state.holder = null;
        break;
      case "central":
        Object.assign(state, {
          central: unknown(), faceUp: unknown(), claim: null, holder: e.seat, pile: e.pile,
          verdict: null,
        });
        state.notes.fill("");
        break;
      case "accept":
        state.scores[e.passer] += e.reward;
        state.holder = e.seat;
        state.notes[e.seat] = "accepted";
        break;
      case "hand":
        state.marked = changed(state.central, e.central);
        state.handMarked[e.seat] = changed(state.hands[e.seat], e.hand);
        state.hands[e.seat] = e.hand;
        state.central = e.central.slice();
        break;
      case "pass":
        state.claim = { text: e.claim, seat: e.seat, blind: false };
        state.faceUp = e.face_up.slice();
        if (view !== null && view !== e.seat && e.swapped > 0) state.central = unknown();
        state.central = (state.central || unknown()).map((c, i) => e.face_up[i] || c);
        state.notes[e.seat] = "swapped " + e.swapped;
        state.holder = nextActive(state, e.seat);
        break;
      case "pay":
        state.scores[e.seat] -= e.amount;
        if (e.payee >= 0) state.scores[e.payee] += e.amount;
        if (state.verdict) state.verdict.paid = { from: e.seat, to: e.payee, amount: e.amount };
        break;
      default:
        break;
    }
  }

  // The positions where a seen hand changed (a swap), when both before and after are known.
  function changed(before, after) {
    if (!before || before.some((t) => t === null)) return [];
    return after.map((t, i) => (t !== before[i] ? i : -1)).filter((i) => i >= 0);
  }

  function cardsGameWord(state, dice, cards) {
    return state.desc.hand === "dice" ? dice : cards;
  }

  function rerollText(state, count) {
    if (state.desc.hand === "dice") return "rerolled " + count + (count === 1 ? " die" : " dice");
    return "exchanged " + count + (count === 1 ? " card" : " cards");
  }

  function noteAdd(note, text) {
    if (!text) return note;
    return note ? note + ", " + text : text;
  }

  function stateAt(index) {
    const state = fresh(game.header);
    for (let k = 0; k <= index; k++) {
      state.marked = [];
      state.handMarked.fill(null);
      for (const event of game.steps[k].events) {
        if (visible(event)) apply(state, event);
      }
    }
    return state;
  }

  // --- the story, in words ---------------------------------------------------------------

  function who(seat) {
    if (seat === null || seat === undefined || seat < 0) return "the bank";
    return "seat " + seat + " (" + game.header.entrants[seat].name + ")";
  }

  function tokenText(token) {
    if (token === null || token === undefined) return "??";
    // Tens are T, as in claims, the terminal and docs/rules.md (poker notation).
    if (token.length === 2) return token[0] + SUITS[token[1]];
    return token;
  }

  // Claims as the game writes them ("three T"); one place to change how they read.
  function said(claim) {
    return claim;
  }

  function tokens(list) {
    return "[" + list.map(tokenText).join(" ") + "]";
  }

  function narrate(events, desc) {
    const lines = [];
    let parts = [];
    let partSeat = null;
    const cards = desc.hand !== "dice";
    const flush = () => {
      if (parts.length) lines.push({ text: who(partSeat) + " " + parts.join(", ") });
      parts = [];
      partSeat = null;
    };
    const part = (seat, text) => {
      if (seat !== partSeat) flush();
      partSeat = seat;
      parts.push(text);
    };
    const line = (text, kind) => { flush(); lines.push({ text: text, kind: kind || "" }); };
    for (const e of events) {
      if (!visible(e)) continue;
      switch (e.kind) {
        case "round": line("Round " + e.round + ": " + who(e.seat) + " throws", "heading"); break;
        case "central":
          line("Central hand " + e.deal + ": " + who(e.seat) + " takes it fresh (" + e.pile +
            " cards left to draw)", "heading");
          break;
        case "roll": case "deal": case "draw":
          part(e.seat, (e.positions ? "gets " : "sees ") + tokens(e.hand)); break;
        case "see": part(e.seat, "sees " + tokens(e.central || e.hand)); break;
        case "hand": part(e.seat, "keeps " + tokens(e.hand)); break;
        case "look": part(e.seat, cards ? "picks up the cards" : "looks"); break;
        case "choose": part(e.seat, "chooses " + who(e.receiver) + " to receive the cup"); break;
        case "reroll":
          part(e.seat, (cards ? "exchanges " : "rerolls ") + (e.count || "no") + " " +
            (cards ? (e.count === 1 ? "card" : "cards") : (e.count === 1 ? "die" : "dice")));
          break;
        case "reshuffle": part(e.seat, "(the discards are reshuffled)"); break;
        case "claim":
          part(e.seat, (e.blind ? "passes blind, claims " : "claims ") + said(e.claim));
          flush();
          break;
        case "accept":
          part(e.seat, "accepts (" + who(e.passer) + " gets " + e.reward + " chip" +
            (e.reward === 1 ? "" : "s") + ")");
          break;
        case "pass": {
          const shown = e.face_up.filter((t) => t);
          part(e.seat, "swaps " + e.swapped + " card" + (e.swapped === 1 ? "" : "s") +
            (shown.length ? ", shows " + shown.map(tokenText).join(" ") : "") +
            ", passes claiming " + said(e.claim));
          flush();
          break;
        }
        case "challenge":
          line(who(e.seat) + (desc.central ? " rejects " : " challenges ") + "seat " +
            e.claimant + "'s " + said(e.claim) + ": the " + (desc.central ? "central " : "") +
            "hand is " + tokens(e.hand) + " (" + said(e.value) + "), " +
            (e.holds ? "the claim holds" : "it was a lie"));
          break;
        case "point": line(who(e.seat) + " takes a point (" + e.points + ")"); break;
        case "pay":
          line(who(e.seat) + " pays " + e.amount + (e.amount === 1 ? " chip" : " chips") + " to " + who(e.payee)); break;
        case "out": line(who(e.seat) + " is out " + ({
          points: "on points", chips: "of chips", forfeit: "by forfeit",
        }[e.reason] || e.reason)); break;
        case "penalty": line(who(e.seat) + " is penalised for fault " + e.faults, "fault"); break;
        case "fault":
          line(who(e.seat) + " FAULT " + e.fault + ": " + e.message, "fault");
          // where in the bot's own code it raised, innermost last (text, never markup)
          for (const frame of e.trace || []) line("    " + String(frame).slice(0, 203), "trace");
          break;
        case "over": line("Game over", "heading"); break;
        default: line(who(e.seat) + " " + e.kind); break;
      }
    }
    flush();
    return lines;
  }

  // --- drawing ---------------------------------------------------------------------------

  function el(tag, className, text) {
    const node = document.createElement(tag);
    if (className) node.className = className;
    if (text !== undefined) node.textContent = text;
    return node;
  }

  function tokenNode(token, faceUp, isDice) {
    if (token === null || token === undefined) {
      const back = el("span", "facedown" + (isDice ? " die-back" : ""), "?");
      back.dataset.token = "?";
      back.title = "hidden";
      return back;
    }
    if (token.length === 1) {
      const die = el("span", "die", token);
      die.dataset.token = token;
      die.title = "die " + token;
      return die;
    }
    const suit = token[1];
    const card = el("span", "card" + (RED_SUITS.has(suit) ? " red" : "") + (faceUp ? " up" : ""));
    card.appendChild(el("b", "", token[0]));
    card.appendChild(el("i", "", SUITS[suit]));
    card.dataset.token = token;
    card.title = tokenText(token) + (faceUp ? " (face up)" : "");
    return card;
  }

  // marked: positions changed at this step (rerolled, exchanged or swapped), drawn so.
  function tokenRow(list, faceUp, isDice, className, marked) {
    const row = el("div", "tokens " + (className || ""));
    (list || unknown()).forEach((token, i) => {
      const node = tokenNode(token, faceUp ? Boolean(faceUp[i]) : false, isDice);
      if (marked && marked.includes(i)) {
        node.className += " changed";
        node.dataset.changed = "true";
        node.title += isDice ? " (rerolled now)" : " (new here now)";
      }
      row.appendChild(node);
    });
    return row;
  }

  function placeText(n) {
    return n + ({ 1: "st", 2: "nd", 3: "rd" }[n] || "th");
  }

  function drawSeat(state, seat, actor) {
    const entrant = game.header.entrants[seat];
    const classes = ["seat"];
    if (seat === actor) classes.push("actor");
    else if (seat === state.holder) classes.push("holder");
    if (!state.active[seat]) classes.push("out");
    if (seat === view) classes.push("viewer");
    const box = el("div", classes.join(" "));
    box.dataset.seat = String(seat);
    box.dataset.score = String(state.scores[seat]);
    const head = el("div", "seat-head");
    head.appendChild(el("span", "seat-no", "seat " + seat + (seat === view ? " · you" : "")));
    const badges = el("span", "badges");
    if (state.over) {
      badges.appendChild(el("span", "badge place", placeText(game.result.placements[seat])));
    } else if (!state.active[seat]) {
      badges.appendChild(el("span", "badge out", "out"));
    } else if (seat === state.holder) {
      badges.appendChild(el("span", "badge turn", "to act"));
    }
    if (!state.desc.central && seat === state.thrower && !state.over) {
      badges.appendChild(el("span", "badge", "thrower"));
    }
    head.appendChild(badges);
    box.appendChild(head);
    box.appendChild(el("div", "seat-name", entrant.name));
    box.appendChild(scoreNode(state, seat));
    if (state.desc.central) {
      box.appendChild(tokenRow(state.hands[seat], null, false, "small", state.handMarked[seat]));
    }
    const note = el("div", "seat-note" + (state.faulted[seat] ? " fault" : ""), state.notes[seat]);
    box.appendChild(note);
    return box;
  }

  function scoreNode(state, seat) {
    const node = el("div", "score");
    const value = state.scores[seat];
    if (state.desc.central) {
      node.appendChild(el("span", "amount", String(value)));
      node.appendChild(el("span", "unit", value === 1 ? "chip" : "chips"));
      return node;
    }
    const most = (game.header.options && game.header.options.max_points) || 5;
    const pips = el("span", "pips");
    pips.setAttribute("aria-hidden", "true");
    for (let k = 0; k < most; k++) pips.appendChild(el("span", "pip" + (k < value ? " on" : "")));
    node.appendChild(pips);
    node.appendChild(el("span", "unit", value + " / " + most + " points"));
    return node;
  }

  function drawCentre(state) {
    const claim = $("claim");
    claim.textContent = state.claim ? said(state.claim.text) : "—";
    claim.dataset.claim = state.claim ? state.claim.text : "";
    $("claimant").textContent = state.claim
      ? "by " + who(state.claim.seat) + (state.claim.blind ? ", blind" : "")
      : (state.over ? "" : "no claim yet: any claim is allowed");
    const hand = $("hand");
    const isDice = state.desc.hand === "dice";
    let row;
    if (state.desc.central) {
      $("hand-label").textContent = "Central hand";
      row = tokenRow(state.central, state.faceUp, false, "big", state.marked);
      $("hand-note").textContent = [
        state.holder !== null ? "with " + who(state.holder) : "",
        state.pile !== null ? state.pile + " cards to draw" : "",
      ].filter(Boolean).join(" · ");
    } else {
      $("hand-label").textContent = isDice ? "The cup" : "The hand";
      row = tokenRow(state.cup, null, isDice, "big", state.marked);
      const hidden = !state.cup || state.cup.some((t) => t === null);
      $("hand-note").textContent = [
        state.holder !== null ? "with " + who(state.holder) : "",
        hidden && view !== null ? "not seen by seat " + view : "",
      ].filter(Boolean).join(" · ");
    }
    row.id = "hand";
    hand.replaceWith(row);
  }

  function drawVerdict(state) {
    const box = $("verdict");
    box.textContent = "";
    const v = state.verdict;
    if (!v) { box.hidden = true; return; }
    box.className = "verdict " + (v.holds ? "holds" : "lie");
    box.dataset.holds = String(v.holds);
    box.appendChild(el("span", "big-word", v.holds ? "The claim holds" : "It was a lie"));
    box.appendChild(document.createTextNode(
      who(v.seat) + (state.desc.central ? " rejects " : " challenges ") + who(v.claimant) +
      "'s " + said(v.claim) + ". The hand is " + said(v.value) + "."));
    box.appendChild(tokenRow(v.hand, null, state.desc.hand === "dice", "small"));
    let after = "";
    if (v.loser !== null) after = who(v.loser) + " takes a point.";
    if (v.paid) {
      after = who(v.paid.from) + " pays " + v.paid.amount + (v.paid.amount === 1 ? " chip" : " chips") + " to " + who(v.paid.to) + ".";
    }
    if (after) box.appendChild(el("div", "", after));
    box.hidden = false;
  }

  function drawFinal(state) {
    const box = $("final");
    box.textContent = "";
    box.hidden = !state.over;
    if (!state.over) return;
    box.appendChild(el("span", "big-word", "Game over"));
    const list = el("ul", "places");
    const places = game.result.placements;
    const order = places.map((p, seat) => seat);
    order.sort((a, b) => places[a] - places[b] || a - b);
    const unit = " " + scoreUnit(state.desc);
    for (const seat of order) {
      const item = el("li", places[seat] === 1 ? "winner" : "");
      item.appendChild(el("span", "place", placeText(places[seat])));
      item.appendChild(document.createTextNode(
        who(seat) + ": " + game.result.scores[seat] + unit));
      list.appendChild(item);
    }
    box.appendChild(list);
  }

  // --- the chances (computed by the report; the viewer only shows them) -----------------

  // A decision's chance, if this view may know it: everyone's view, or the deciding seat's.
  function shownChance(s) {
    const c = s.chance;
    if (!c || (view !== null && view !== c.seat)) return null;
    return c;
  }

  // A bluff is shown where the view knows the hand: everyone's, or a claimant who saw it.
  function shownBluff(c) {
    return c.claim && c.bluff && (view === null || c.thousandths === 0);
  }

  function percent(thousandths) {
    return (thousandths / 10).toFixed(1) + "%";
  }

  function chanceNode(c) {
    const node = el("span", "chance" + (c.claim ? " of-claim" : " of-response"),
      "chance " + percent(c.thousandths));
    node.dataset.chance = String(c.thousandths);
    node.title = (c.claim ? "the chance its claim holds, by what seat " + c.seat + " knew"
      : "the chance the claim it answers holds, by what seat " + c.seat + " knew");
    return node;
  }

  function bluffNode() {
    const node = el("span", "bluff", "bluff");
    node.title = "the claimant's hand did not hold this claim";
    return node;
  }

  function drawOdds() {
    const box = $("odds");
    box.textContent = "";
    const c = shownChance(game.steps[step]);
    if (!c) return;
    box.appendChild(chanceNode(c));
    box.appendChild(document.createTextNode(c.claim ? " by what seat " + c.seat + " knew"
      : " by what seat " + c.seat + " knew, answering"));
    if (shownBluff(c)) box.appendChild(bluffNode());
  }

  // The chance over the game (x: step), like an advantage chart: a claim's dot filled, a
  // response's hollow; the turning point (arena.report.chances.turning_point) marked in red.
  const SVG = "http://www.w3.org/2000/svg";
  const CHART = { width: 340, height: 110, left: 26, right: 6, top: 6, bottom: 8 };

  function svg(tag, attributes) {
    const node = document.createElementNS(SVG, tag);
    for (const [key, value] of Object.entries(attributes)) node.setAttribute(key, String(value));
    return node;
  }

  function chartX(k) {
    const span = Math.max(1, game.steps.length - 1);
    return CHART.left + (CHART.width - CHART.left - CHART.right) * k / span;
  }

  function chartY(thousandths) {
    return CHART.top + (CHART.height - CHART.top - CHART.bottom) * (1 - thousandths / 1000);
  }

  function drawChart() {
    const box = $("chart");
    box.textContent = "";
    const points = [];
    game.steps.forEach((s, k) => {
      const c = shownChance(s);
      if (c) points.push([k, c]);
    });
    const figure = box.closest("figure");
    if (figure) figure.hidden = points.length === 0;
    if (!points.length || !document.createElementNS) return; // (a page without SVG)
    const chart = svg("svg", {
      viewBox: "0 0 " + CHART.width + " " + CHART.height, class: "chart", role: "img",
      "aria-label": "Chance the claim holds at each step; click to go to a step",
    });
    chart.appendChild(svg("rect", { x: CHART.left, y: CHART.top, class: "plot",
      width: CHART.width - CHART.left - CHART.right,
      height: CHART.height - CHART.top - CHART.bottom }));
    for (const [value, label] of [[1000, "100%"], [500, "50%"], [0, "0%"]]) {
      chart.appendChild(svg("line", { x1: CHART.left, x2: CHART.width - CHART.right,
        y1: chartY(value), y2: chartY(value), class: "grid" }));
      const text = svg("text", { x: CHART.left - 3, y: chartY(value) + 3, class: "axis" });
      text.textContent = label;
      chart.appendChild(text);
    }
    chart.appendChild(svg("line", { x1: chartX(step), x2: chartX(step), y1: CHART.top,
      y2: CHART.height - CHART.bottom, class: "now" }));
    const turning = points.find(([k]) => k === game.turning);
    if (turning) {
      chart.appendChild(svg("line", { x1: chartX(turning[0]), x2: chartX(turning[0]),
        y1: CHART.top, y2: CHART.height - CHART.bottom, class: "turning",
        "data-step": turning[0] }));
    }
    chart.appendChild(svg("polyline", { class: "trace", points: points.map(([k, c]) =>
      chartX(k).toFixed(1) + "," + chartY(c.thousandths).toFixed(1)).join(" ") }));
    for (const [k, c] of points) {
      const dot = svg("circle", { cx: chartX(k), cy: chartY(c.thousandths), r: 2.6,
        class: (c.claim ? "claim" : "response") + (k === step ? " current" : "") +
          (shownBluff(c) ? " bluffed" : ""), "data-step": k, "data-chance": c.thousandths });
      const title = svg("title", {});
      title.textContent = "step " + (k + 1) + ": " + percent(c.thousandths) +
        (c.claim ? " (claim, seat " : " (response, seat ") + c.seat + ")";
      dot.appendChild(title);
      chart.appendChild(dot);
    }
    chart.addEventListener("click", (event) => {
      const rect = chart.getBoundingClientRect();
      const x = (event.clientX - rect.left) * CHART.width / rect.width;
      const span = CHART.width - CHART.left - CHART.right;
      go(Math.round((x - CHART.left) / span * Math.max(1, game.steps.length - 1)));
    });
    box.appendChild(chart);
  }

  function drawLog() {
    const log = $("log");
    log.textContent = "";
    let current = null;
    game.steps.slice(0, step + 1).forEach((s, k) => {
      const c = shownChance(s);
      let first = true;
      for (const line of narrate(s.events, describe(game.header.rules.id))) {
        const item = el("li", (k === step ? "now " : "past ") + line.kind, line.text);
        item.dataset.step = String(k);
        if (first && c) {
          item.appendChild(chanceNode(c));
          if (shownBluff(c)) item.appendChild(bluffNode());
          if (k === game.turning) item.appendChild(el("span", "turning", "turning point"));
        }
        first = false;
        item.addEventListener("click", () => go(k));
        log.appendChild(item);
        if (k === step && current === null) current = item;
      }
    });
    storyNow = current;
  }

  // The story pane's scroll (to the step's first line) and the page's address, done once a
  // task, after every render of it: the scroll reads the page's layout, which a render has
  // just changed, and the address goes to the browser, so a task that draws many steps (a
  // script's walk, a slider's drag) paid both each step: ~25 ms a step of a 40-step game.
  let storyNow = null;
  let settling = false;

  function settle() {
    if (settling) return;
    settling = true;
    Promise.resolve().then(() => {
      settling = false;
      const pane = storyNow && storyNow.closest(".story");
      if (pane) pane.scrollTop = Math.max(0, storyNow.offsetTop - pane.clientHeight / 2);
      const hash = "#game=" + encodeURIComponent(gameId) + "&pack=" + pack +
        (view === null ? "" : "&view=" + view) + (step ? "&step=" + step : "") +
        (back === null ? "" : "&back=" + encodeURIComponent(back)) +
        (speed === 1 ? "" : "&speed=" + speed);
      if (location.hash !== hash) history.replaceState(null, "", hash);
    });
  }

  function drawViews() {
    const box = $("views");
    box.textContent = "";
    const choices = [[null, "Everyone"]].concat(
      game.header.entrants.map((e, seat) => [seat, seat + " · " + e.name]));
    for (const [seat, label] of choices) {
      const button = el("button", "", label);
      button.type = "button";
      button.dataset.view = seat === null ? "all" : String(seat);
      button.setAttribute("aria-pressed", String(seat === view));
      button.title = seat === null ? "Show everything (A)" : "Only what seat " + seat + " knew (" + seat + ")";
      button.addEventListener("click", () => setView(seat));
      box.appendChild(button);
    }
  }

  function render() {
    const state = stateAt(step);
    const app = $("app");
    const actor = game.steps[step].seat;
    app.dataset.step = String(step);
    app.dataset.steps = String(game.steps.length);
    app.dataset.view = view === null ? "all" : String(view);
    const seats = $("seats");
    seats.textContent = "";
    for (let seat = 0; seat < state.n; seat++) seats.appendChild(drawSeat(state, seat, actor));
    drawCentre(state);
    drawVerdict(state);
    drawFinal(state);
    drawOdds();
    drawLog();
    drawChart();
    drawViews();
    $("slider").value = String(step);
    $("counter").textContent = "step " + (step + 1) + " / " + game.steps.length;
    $("first").disabled = $("prev").disabled = step === 0;
    $("next").disabled = $("last").disabled = step === game.steps.length - 1;
    settle();
  }

  // --- controls --------------------------------------------------------------------------

  function go(index) {
    step = Math.min(Math.max(0, index), game.steps.length - 1);
    if (step === game.steps.length - 1) stop();
    render();
  }

  function setView(seat) {
    view = seat;
    render();
  }

  function setSpeed(value) {
    speed = value;
    if (timer !== null) {
      clearInterval(timer);
      timer = setInterval(() => go(step + 1), 1100 / speed);
    }
    render();
  }

  function stop() {
    if (timer !== null) clearInterval(timer);
    timer = null;
    $("play").innerHTML = PLAY;
    $("play").setAttribute("aria-label", "Play");
  }

  function togglePlay() {
    if (timer !== null) { stop(); return; }
    if (step === game.steps.length - 1) step = 0;
    timer = setInterval(() => go(step + 1), 1100 / speed);
    $("play").innerHTML = PAUSE;
    $("play").setAttribute("aria-label", "Pause");
    render();
  }

  function onKey(event) {
    if (!game || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    if (target && target.id === "slider" && event.key.startsWith("Arrow")) return;
    if (target && target.tagName === "SELECT") return;
    const key = event.key;
    if (key === "ArrowRight" || key === "ArrowDown" || key === "PageDown") go(step + 1);
    else if (key === "ArrowLeft" || key === "ArrowUp" || key === "PageUp") go(step - 1);
    else if (key === "Home") go(0);
    else if (key === "End") go(game.steps.length - 1);
    else if (key === " ") togglePlay();
    else if (key === "a" || key === "A") setView(null);
    else if (key === "n" || key === "N") openGame(neighbours.next);
    else if (key === "p" || key === "P") openGame(neighbours.prev);
    else if (/^[0-5]$/.test(key) && Number(key) < game.header.entrants.length) setView(Number(key));
    else return;
    event.preventDefault();
  }

  function start() {
    const header = game.header;
    const about = header.game || {};
    $("title").textContent = "Game " + about.id;
    document.title = "Game " + about.id + " · arena replay";
    const where = [about.tournament, about.stage, about.table ? "table " + about.table : ""];
    $("subtitle").textContent = [header.rules.id, ...where.filter(Boolean),
      "seed " + header.seedText, game.result.decisions + " decisions"].join(" · ");
    $("message").hidden = true;
    $("game").hidden = false;
    const slider = $("slider");
    slider.max = String(game.steps.length - 1);
    slider.addEventListener("input", () => go(Number(slider.value)));
    $("first").addEventListener("click", () => go(0));
    $("prev").addEventListener("click", () => go(step - 1));
    $("next").addEventListener("click", () => go(step + 1));
    $("last").addEventListener("click", () => go(game.steps.length - 1));
    $("play").addEventListener("click", togglePlay);
    $("speed").value = String(speed);
    $("speed").addEventListener("change", () => setSpeed(Number($("speed").value)));
    $("prev-game").addEventListener("click", () => openGame(neighbours.prev));
    $("next-game").addEventListener("click", () => openGame(neighbours.next));
    $("controls").hidden = false;
    if (document.body) document.body.classList.add("playing-controls");
    document.addEventListener("keydown", onKey);
    // A new address (another game, Back and Forward between games, an edited address; the
    // viewer's own steps replace the address without this event): load it afresh.
    if (window.addEventListener) window.addEventListener("hashchange", () => location.reload());
    render();
  }

  load();
})();
