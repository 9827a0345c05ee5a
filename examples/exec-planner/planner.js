#!/usr/bin/env node
// An example trapline exec planner (protocol v1, docs/exec-protocol.md) in plain Node.js, no npm
// dependencies. It reads one observation message per line on stdin and writes one action line on
// stdout: it clicks the first link or button whose name contains a keyword of the goal, then says
// done. Diagnostics go to stderr; stdout carries only actions.
//
//   node planner.js < messages.jsonl
'use strict';

const readline = require('node:readline');

const PROTOCOL = 1;

// Words too common to say anything about what to click.
const STOPWORDS = new Set([
  'della', 'delle', 'dello', 'degli', 'alla', 'alle', 'allo', 'agli', 'nella', 'nelle', 'sulla', 'sulle',
  'questa', 'questo', 'quella', 'quello', 'come', 'dove', 'quando', 'anche', 'sono', 'essere', 'tutte', 'tutti',
  'with', 'from', 'that', 'this', 'then', 'into', 'page', 'the', 'and', 'for',
]);

// fold lowercases and strips accents, so "Modifica" matches "modifica" and "attività" matches "attivita".
function fold(s) {
  return s.normalize('NFKD').replace(/\p{M}/gu, '').toLowerCase();
}

// keywords are the goal's words of four letters or more, stop words left out.
function keywords(goal) {
  return fold(goal).split(/[^\p{L}\p{N}]+/u).filter((w) => w.length >= 4 && !STOPWORDS.has(w));
}

// elements reads the compact observation: `<snapshot>:eN role "name" ...`, one per line.
function elements(observation) {
  const out = [];
  for (const line of observation.split('\n')) {
    const m = /^(\S+:\S+) (link|button) ("(?:[^"\\]|\\.)*")/.exec(line);
    if (!m) continue;
    let name;
    try {
      name = JSON.parse(m[3]);
    } catch {
      continue; // a name we cannot read is not a target
    }
    out.push({ ref: m[1], role: m[2], name });
  }
  return out;
}

// decide returns the action for one message.
function decide(msg) {
  if (msg.feedback) process.stderr.write(`step ${msg.step}: feedback: ${msg.feedback}\n`);
  const clicked = msg.history.some((s) => s.action.action === 'click');
  if (clicked) return { action: 'done', reason: 'clicked what the goal names' };
  const words = keywords(msg.goal);
  for (const el of elements(msg.observation)) {
    const name = fold(el.name);
    const hit = words.find((w) => name.includes(w));
    if (hit) return { action: 'click', ref: el.ref, reason: `the ${el.role} name contains "${hit}"` };
  }
  return { action: 'done', reason: 'no link or button matches the goal' };
}

const rl = readline.createInterface({ input: process.stdin, crlfDelay: Infinity });
rl.on('line', (line) => {
  let msg;
  try {
    msg = JSON.parse(line);
  } catch (err) {
    process.stderr.write(`not a JSON message: ${err.message}\n`);
    process.exit(2);
  }
  if (msg.v !== PROTOCOL) {
    process.stderr.write(`protocol version ${msg.v} is not supported (want ${PROTOCOL})\n`);
    process.exit(2);
  }
  process.stdout.write(JSON.stringify(decide(msg)) + '\n');
});
rl.on('close', () => process.exit(0));
