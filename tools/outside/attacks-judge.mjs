// The verdicts of attacks.sh, from what the attackers' own processes recorded (and the sluice
// log's one line per disabled endpoint): node attacks-judge.mjs WORK_DIR TIMEOUT_MS BEYOND.
// Prints each attack's figures and verdict; exit 0 when every verdict holds.
import { existsSync, readFileSync } from "node:fs";

const [w, timeoutArg, beyondArg] = process.argv.slice(2);
const timeoutMs = Number(timeoutArg);
const lines = (f) => (existsSync(`${w}/${f}`) ? readFileSync(`${w}/${f}`, "utf8").split("\n").filter(Boolean) : []);
const jsonl = (f) => lines(f).map((l) => JSON.parse(l));
const sluiceLog = lines("logs/sluice.log");
const disabledLine = (lane) => sluiceLog.find((l) => l.includes(`${lane}: endpoint disabled`)) ?? null;
const events = lines("events.tsv").map((l) => JSON.parse(l.split("\t")[1]));
let failed = 0;
const verdict = (ok, what) => {
  console.log(`${ok ? "PASS" : "FAIL"}  ${what}`);
  if (!ok) failed += 1;
};
const deadLetters = (tenant) => lines("topics/sluice.dlq.txt").filter((l) => l.startsWith(`${tenant}\t`));
const reasons = (tenant) => {
  const count = {};
  for (const l of deadLetters(tenant)) {
    const reason = (/sluice-reason=([a-z_]+)/.exec(l) ?? /"reason":"([a-z_]+)"/.exec(l) ?? [0, "?"])[1];
    count[reason] = (count[reason] ?? 0) + 1;
  }
  return JSON.stringify(count);
};

// a. DNS rebinding
const internal = jsonl("records/internal.jsonl");
const fromJar = internal.filter((r) => r.listener === "jar");
const controls = jsonl("control.json");
const reachedByControl = controls.reduce((n, c) => n + c.reachedInternal, 0);
const rebindLine = disabledLine("rebind/rebinder");
console.log(`a. rebinding: the internal service saw ${fromJar.length} connection(s) from the jar; `
  + `${events.filter((e) => e.tenant === "rebinder").length} events, dead letters ${reasons("rebinder")}; `
  + `control ${JSON.stringify(controls)}`);
console.log(`   ${rebindLine ?? "(no disabled line)"}`);
console.log(`   a dead letter's headers: ${(deadLetters("rebinder")[0] ?? "").split("\t")[1]?.slice(0, 400) ?? "(none)"}`);
verdict(fromJar.length === 0, "a. the jar never reached the internal service");
verdict(rebindLine !== null, "a. the rebinding endpoint was disabled");
verdict(reachedByControl > 0, "a. the attack was live: check-then-connect on the same hosts file reached it");

// b. a trickling endpoint
const calls = jsonl("records/trickle.jsonl");
const held = calls.map((c) => Math.round(c.closedAt - c.t));
const trickleLine = disabledLine("slow/trickler");
console.log(`b. trickling: ${calls.length} calls, held ${JSON.stringify(held)} ms from the request to Sluice closing, `
  + `bytes of body trickled ${JSON.stringify(calls.map((c) => c.bytesTrickled))}; dead letters ${reasons("trickler")}`);
console.log(`   ${trickleLine ?? "(no disabled line)"}`);
console.log(`   a dead letter's headers: ${(deadLetters("trickler")[0] ?? "").split("\t")[1]?.slice(0, 400) ?? "(none)"}`);
verdict(calls.length >= 3 && calls.every((c) => c.closedBy === "client" && c.closedAt - c.t <= timeoutMs + 500),
  `b. every call closed by Sluice within the timeout (${timeoutMs} ms) + 500 ms`);
verdict(trickleLine !== null && /last: timed out/.test(trickleLine), "b. the trickling endpoint was disabled, its last failure a timeout");

// c. slow-loris
const probes = (f) => lines(f).map((l) => {
  const [path, code, seconds] = l.split(" ");
  return { path, code, ms: Math.round(Number(seconds) * 1000) };
});
const summary = (ps) => {
  const by = {};
  for (const p of ps) {
    const b = (by[p.path] ??= { n: 0, ok: 0, maxMs: 0 });
    b.n += 1;
    b.ok += p.code === "200" ? 1 : 0;
    b.maxMs = Math.max(b.maxMs, p.ms);
  }
  return JSON.stringify(by);
};
const during = probes("probes/during.txt");
console.log(`c. slow-loris: before ${summary(probes("probes/before.txt"))}`);
console.log(`   during ${summary(during)}; the attacker: ${lines("records/loris-during.jsonl")[0] ?? "?"}`);
console.log(`   after ${summary(probes("probes/after.txt"))}`);
verdict(during.length > 0 && during.every((p) => p.code === "200" && p.ms < 1000),
  "c. every probe during the attack answered 200 within 1 s");
if (Number(beyondArg) > 0) {
  console.log(`   beyond (${beyondArg} sockets, not judged): ${summary(probes("probes/beyond.txt"))}; `
    + `the attacker: ${lines("records/loris-beyond.jsonl")[0] ?? "?"}`);
}

// d. forgery
const tries = jsonl("forge.jsonl");
const b = jsonl("records/receiver-b.jsonl").filter((r) => r.verdict);
const genuine = b.filter((r) => String(r.id).startsWith("hooks-tb-"));
const aGot = jsonl("records/receiver-a.jsonl").filter((r) => r.verdict === "accepted").length;
console.log(`d. forgery: tenant A's tries ${JSON.stringify(tries.map((t) => [t.try, t.status]))}; `
  + `B's receiver accepted ${genuine.filter((r) => r.verdict === "accepted").length} of ${genuine.length} genuine deliveries `
  + `(${events.filter((e) => e.tenant === "tb").length} produced); A's receiver accepted ${aGot} of its own`);
verdict(tries.length === 2 && tries.every((t) => t.status === 401), "d. B's receiver refused A's forged and replayed messages");
verdict(genuine.length >= 5 && genuine.every((r) => r.verdict === "accepted"), "d. B's receiver accepted every genuine delivery");

process.exit(failed === 0 ? 0 : 1);
