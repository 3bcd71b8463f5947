#!/usr/bin/env node
// An example bot speaking arena's JSON-lines protocol (docs/protocol.md), in plain Node.js.
//
// Run it with arena as a command bot, e.g. CommandHost(["node", "example_bot.js"]).
// It plays exactly like example_bot.py (same strategy, same random generator).
//
// Strategy: as the thrower, or after looking, claim the lowest legal claim; when a claim
// comes to it, challenge if the claimant has already claimed twice this round (read from the
// round's history), else one time in three, otherwise look (dice) or accept (cards); reroll
// the dice (or exchange the cards) whose rank appears only once, among those the rule options
// leave it (legal.rerollable; at least one when legal.must_reroll); as a loser choosing the
// receiver (receiver: loser_chooses), the seat with the most points, nearest to its left.
"use strict";

const readline = require("readline");

const PROTOCOL = 2;

// A tiny seeded generator, the same in every language: returns floats in [0, 1).
function mulberry32(seed) {
  let state = seed >>> 0;
  return function draw() {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), 1 | state) >>> 0;
    t = (((t + (Math.imul(t ^ (t >>> 7), 61 | t) >>> 0)) >>> 0) ^ t) >>> 0;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Fold the 53-bit seed from `start` into 32 bits (exact: the seed is below 2^53).
function seedOf(seed) {
  return ((seed % 4294967296) ^ Math.floor(seed / 4294967296)) >>> 0;
}

class ExampleBot {
  constructor(context) {
    this.seat = context.seat;
    this.random = mulberry32(seedOf(context.seed));
    this.events = []; // every event of this game, in order
  }

  // This round's public events: those sent from `history_from` on, without the private ones
  // (protocol 2 points into the events instead of repeating them).
  history(observation) {
    return this.events.slice(observation.history_from).filter((e) => !("to" in e));
  }

  // Choose an action from what the observation says is legal.
  act(observation) {
    const { decision, min_claim: lowest } = observation.legal;
    if (decision === "claim") return { type: "bid", claim: lowest };
    if (decision === "respond" || decision === "accept") {
      const claimant = observation.claimant;
      const raised = this.history(observation)
        .filter((e) => e.seat === claimant && "claim" in e).length;
      if (lowest === null || raised >= 2 || this.random() < 1 / 3) return { type: "challenge" };
      return { type: decision === "respond" ? "look" : "accept" };
    }
    if (decision === "reroll") return { type: "reroll", positions: this.reroll(observation) };
    if (decision === "choose") return { type: "choose", seat: this.receiver(observation) };
    if (decision === "turn") return { type: "pass", claim: lowest, swaps: [], reveal: [] };
    return { type: "challenge" };
  }

  // The positions whose rank appears once, among those that may be rerolled now.
  reroll(observation) {
    const legal = observation.legal;
    const ranks = observation.hand.map((face) => face[0]);
    const may = legal.rerollable || [0, 1, 2, 3, 4];
    const once = (r) => ranks.filter((x) => x === r).length === 1;
    let positions = ranks.flatMap((r, i) => (once(r) && may.includes(i) ? [i] : []));
    if (positions.length === 0 && legal.must_reroll && may.length > 0) positions = [may[0]];
    return positions;
  }

  // The seat with the most points among those it may choose, nearest to its left.
  receiver(observation) {
    const scores = observation.scores;
    const players = scores.length;
    const key = (s) => [-scores[s], (s - this.seat + players) % players];
    return observation.legal.seats.reduce((best, s) => {
      const [a, b] = [key(s), key(best)];
      return a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]) ? s : best;
    });
  }
}

// One JSON object per line (writes to a pipe are synchronous in Node on Linux).
function send(message) {
  process.stdout.write(JSON.stringify(message) + "\n");
}

let bot = null;
const input = readline.createInterface({ input: process.stdin });
input.on("line", (line) => {
  const message = JSON.parse(line);
  switch (message.type) {
    case "hello":
      send({ type: "hello", protocol: PROTOCOL, name: "example-js" });
      break;
    case "start":
      bot = new ExampleBot(message.context);
      send({ type: "ready" });
      break;
    case "event":
      if (bot !== null) bot.events.push(message.event);
      break;
    case "act":
      send({ type: "action", turn: message.turn, action: bot.act(message.observation) });
      break;
    case "end":
      bot = null;
      send({ type: "done" });
      break;
    case "shutdown":
      process.exit(0);
      break;
    default: // unknown types need no reply
  }
});
input.on("close", () => process.exit(0));
