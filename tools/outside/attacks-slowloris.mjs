// Slow-loris against the ops port: SOCKETS connections held open for DURATION seconds, half of
// them idle (connected, nothing sent), half trickling a request head that never ends (the
// request line, then one byte a second); with TRICKLING=all, every one trickling. A connection the server closes is opened again after
// 100 ms: the attacker keeps SOCKETS open all along.
//
//   HOST (127.0.0.1), PORT, SOCKETS (200), DURATION (30), TRICKLING (half|all), RECORD_FILE
//
// Writes one summary line to RECORD_FILE at the end: {sockets, opened, closedByServer: {idle,
// trickling}, heldMs: {idle, trickling} (median time a connection the server closed was held),
// openEachSecond: [min, max]}.
import { connect } from "node:net";
import { appendFileSync } from "node:fs";
import { env } from "./peer.mjs";

const host = process.env.HOST ?? "127.0.0.1";
const port = Number(env("PORT"));
const sockets = Number(process.env.SOCKETS ?? 200);
const durationMs = Number(process.env.DURATION ?? 30) * 1000;
const recordFile = env("RECORD_FILE");

let stopping = false;
let opened = 0;
let open = 0;
const closed = { idle: [], trickling: [] };
const live = new Set();

function hold(kind) {
  if (stopping) return;
  const t0 = Date.now();
  const socket = connect({ host, port });
  live.add(socket);
  opened += 1;
  let timer = null;
  let connected = false;
  socket.on("connect", () => {
    connected = true;
    open += 1;
    if (kind === "trickling") {
      socket.write("GET /live HTTP/1.1\r\nHost: ops\r\nX-Slow: ");
      timer = setInterval(() => socket.write("a"), 1000);
    }
  });
  socket.on("error", () => {});
  socket.on("close", () => {
    clearInterval(timer);
    live.delete(socket);
    if (connected) open -= 1;
    if (stopping) return;
    closed[kind].push(Date.now() - t0);
    setTimeout(() => hold(kind), 100);
  });
}

const all = process.env.TRICKLING === "all";
for (let i = 0; i < sockets; i++) hold(all || i % 2 === 1 ? "trickling" : "idle");
let min = Infinity;
let max = 0;
const sampler = setInterval(() => {
  min = Math.min(min, open);
  max = Math.max(max, open);
}, 1000);

const median = (xs) => (xs.length === 0 ? null : [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]);
setTimeout(() => {
  stopping = true;
  clearInterval(sampler);
  const summary = {
    sockets, trickling: all ? "all" : "half", opened,
    closedByServer: { idle: closed.idle.length, trickling: closed.trickling.length },
    heldMs: { idle: median(closed.idle), trickling: median(closed.trickling) },
    openEachSecond: [min, max],
  };
  appendFileSync(recordFile, JSON.stringify(summary) + "\n");
  console.log(JSON.stringify(summary));
  live.forEach((s) => s.destroy());
  process.exit(0);
}, durationMs);
