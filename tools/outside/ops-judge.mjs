// Judges a run of operations.sh from the providers' own records, the operator's stamps
// (ops.jsonl), the /live readings and the replay outputs; with --pause-seconds (mode.json), also
// steady-api unchanged through the long pause and paced-api's drain after it:
//   node ops-judge.mjs WORK_DIR
// Prints the figures and each verdict, writes WORK_DIR/figures.json, exits 1 if a verdict fails.
import { readFileSync, existsSync, writeFileSync } from "node:fs";

const [dir] = process.argv.slice(2);
const lines = (file) => existsSync(file)
  ? readFileSync(file, "utf8").split("\n").filter((l) => l.trim() !== "") : [];
const jsonl = (file) => lines(file).map((l) => JSON.parse(l));
const calls = (name) => jsonl(`${dir}/records/${name}.jsonl`);
const step = Object.fromEntries(jsonl(`${dir}/ops.jsonl`).map((s) => [s.step, s]));
const json = (file) => JSON.parse(readFileSync(`${dir}/${file}`, "utf8"));
const between = (cs, from, to) => cs.filter((c) => c.t >= from && c.t < to);
const perSecond = (cs, from, to) => Number((between(cs, from, to).length / ((to - from) / 1000)).toFixed(2));
const ok200 = (cs) => cs.filter((c) => c.status === 200);
// the run's numbers (operations.sh writes them; a work directory from before, today's)
const mode = existsSync(`${dir}/mode.json`) ? json("mode.json") : { pauseSeconds: null, pacedAllows: 20, pacedRate: 19 };
const longPause = mode.pauseSeconds !== null;
const produced = json("produced.json");

/** The most calls in any window of `ms` (arrival times). */
function mostInWindow(cs, ms) {
  const times = cs.map((c) => c.t).sort((a, b) => a - b);
  let most = 0;
  for (let i = 0, j = 0; i < times.length; i++) {
    while (times[i] - times[j] >= ms) j++;
    most = Math.max(most, i - j + 1);
  }
  return most;
}

const verdicts = [];
const check = (name, ok, detail) => verdicts.push({ name, ok: Boolean(ok), detail });
const figures = {};

// 1. pause: no call from 1 s after the command (once it has returned: the pause is written in
// Redis) until resume; the paced rate within 2 s after it
const paced = calls("paced-api");
const pausedFrom = step.pause.returned + 1000;
const during = between(paced, pausedFrom, step.resume.t);
const lastBefore = paced.filter((c) => c.t < step.resume.t && c.t >= step.pause.t).map((c) => c.t);
const firstAfter = paced.find((c) => c.t >= step.resume.returned);
figures.pause = {
  callsFrom1sAfterPauseUntilResume: during.length,
  lastCallAfterPauseReturnedMs: lastBefore.length ? Math.round(Math.max(...lastBefore) - step.pause.returned) : null,
  pauseCommandTookMs: step.pause.returned - step.pause.t,
  resumeCommandTookMs: step.resume.returned - step.resume.t,
  firstCallAfterResumeReturnedMs: firstAfter ? Math.round(firstAfter.t - step.resume.returned) : null,
  ratePerSecond2To5sAfterResume: perSecond(paced.filter((c) => c.status === 200), step.resume.returned + 2000, step.resume.returned + 5000),
  ratePerSecond10sBeforePause: perSecond(paced.filter((c) => c.status === 200), step.pause.t - 10000, step.pause.t),
};
check("no call to paced-api from 1 s after `pause` until `resume`", during.length === 0,
  `${during.length} calls`);
check(`paced-api at >= 90% of ${mode.pacedRate}/s from 2 s after \`resume\``,
  figures.pause.ratePerSecond2To5sAfterResume >= 0.9 * mode.pacedRate, `${figures.pause.ratePerSecond2To5sAfterResume}/s`);

if (longPause) {
  // the others unchanged: steady-api (always a backlog) over the pause against the 30 s before it
  const steady = ok200(calls("steady-api"));
  const before = perSecond(steady, step.pause.t - 30000, step.pause.t);
  const over = perSecond(steady, pausedFrom, step.resume.t);
  const tens = [];
  for (let from = pausedFrom; from + 10000 <= step.resume.t; from += 10000) tens.push(perSecond(steady, from, from + 10000));
  figures.steady = {
    ratePerSecond30sBeforePause: before, ratePerSecondOverPause: over,
    change: Number((over / before - 1).toFixed(4)),
    slowest10sOverPause: Math.min(...tens), fastest10sOverPause: Math.max(...tens),
    // each second of the pause below 90% of the rate before, as [seconds after `pause`, calls]
    slowSecondsOverPause: Array.from({ length: Math.floor((step.resume.t - pausedFrom) / 1000) }, (_, i) =>
      [Math.round((pausedFrom - step.pause.t) / 1000) + i, between(steady, pausedFrom + i * 1000, pausedFrom + (i + 1) * 1000).length])
      .filter(([, n]) => n < 0.9 * before),
  };
  check("steady-api's rate over the pause within 2% of its rate in the 30 s before",
    before > 0 && Math.abs(over / before - 1) <= 0.02,
    `${over}/s against ${before}/s (${(100 * figures.steady.change).toFixed(2)}%)`);

  // the drain: paced-api's backlog when `resume` returned (its load ends at the resume), at its
  // paced rate over the first 60 s, or until every event of it has been accepted if sooner
  const from = step.resume.returned;
  const firstAccepted = new Map();
  for (const c of ok200(paced)) if (!firstAccepted.has(c.id)) firstAccepted.set(c.id, c.t);
  const ids = Array.from({ length: produced["paced-api"] }, (_, n) => `paced-api-${String(n).padStart(6, "0")}`);
  const backlog = ids.filter((id) => !(firstAccepted.get(id) < from));
  const drained = backlog.every((id) => firstAccepted.has(id));
  const emptyAt = drained && backlog.length ? Math.max(...backlog.map((id) => firstAccepted.get(id))) : null;
  const to = emptyAt !== null && emptyAt < from + 60000 ? emptyAt + 1 : from + 60000;
  const drainRate = perSecond(ok200(paced), from, to);
  const at = (share) => { // ms from `resume` returned until that share of the backlog was accepted
    const ts = backlog.map((id) => firstAccepted.get(id)).filter((t) => t !== undefined).sort((a, b) => a - b);
    const i = Math.ceil(share * backlog.length) - 1;
    return i >= 0 && i < ts.length ? Math.round(ts[i] - from) : null;
  };
  figures.drain = {
    backlogWhenResumeReturned: backlog.length, windowSeconds: Number(((to - from) / 1000).toFixed(1)),
    ratePerSecond: drainRate, pacedRate: mode.pacedRate,
    half: at(0.5), ninetyPercentMs: at(0.9), allMs: drained ? (emptyAt === null ? 0 : Math.round(emptyAt - from)) : null,
    perSecondFirst60s: Array.from({ length: 60 }, (_, i) => between(ok200(paced), from + i * 1000, from + (i + 1) * 1000).length),
  };
  check(`paced-api's backlog drained at >= 90% of ${mode.pacedRate}/s over the first 60 s after \`resume\` (or until empty)`,
    backlog.length > 0 && drainRate >= 0.9 * mode.pacedRate,
    `${backlog.length} waiting; ${drainRate}/s over ${figures.drain.windowSeconds} s`);
}

// 2. dead letters replayed once
const flaky = calls("flaky-api");
const brokenIds = new Set(flaky.filter((c) => c.status === 400).map((c) => c.id));
const accepted = flaky.filter((c) => c.status === 200);
const acceptedPerId = accepted.reduce((m, c) => m.set(c.id, (m.get(c.id) ?? 0) + 1), new Map());
const replay1 = json("replay-1.json");
const replay2 = json("replay-2.json");
const afterSecond = accepted.filter((c) => c.t >= step["replay-2"].t + 10000).length;
figures.deadLetters = {
  refusedWith400: brokenIds.size,
  replayDryRunWouldSend: json("replay-dry.json").wouldSend.length,
  firstReplaySent: replay1.sent.length,
  secondReplaySent: replay2.sent.length,
  accepted: accepted.length,
  idsAcceptedOnce: [...acceptedPerId.values()].filter((n) => n === 1).length,
  idsAcceptedMoreThanOnce: [...acceptedPerId.values()].filter((n) => n > 1).length,
  acceptedMoreThan10sAfterSecondReplay: afterSecond,
};
check("200 events dead-lettered while flaky-api answered 400", brokenIds.size === 200, `${brokenIds.size}`);
check("the first replay sent 200", replay1.sent.length === 200, `${replay1.sent.length}`);
check("all 200 delivered once", accepted.length === 200 && [...brokenIds].every((id) => acceptedPerId.get(id) === 1),
  `${accepted.length} accepted, ${figures.deadLetters.idsAcceptedOnce} ids once`);
check("the same replay again sends 0", replay2.sent.length === 0, `${replay2.sent.length}`);

// 3. a tenant's quota raised under load
const grow = calls("quota-api").filter((c) => c.tenant === "grow" && c.status === 200);
// from the moment the command returned (the record is in Redis); the command's own time, a JVM
// start on a busy machine, is reported beside it
const set = step["tenants-set"].returned;
figures.tenants = {
  commandTookMs: step["tenants-set"].returned - step["tenants-set"].t,
  growPerSecond20sBeforeSet: perSecond(grow, set - 20000, set),
  growPerSecond5To15sAfterSet: perSecond(grow, set + 5000, set + 15000),
  growPerSecondPerSecondAfterSet: Array.from({ length: 15 }, (_, i) => between(grow, set + i * 1000, set + (i + 1) * 1000).length),
};
check("`sluice tenants set` exit 0", step["tenants-set"].exit === 0, `exit ${step["tenants-set"].exit}`);
check("grow at about its old quota (2/s) before `tenants set`",
  figures.tenants.growPerSecond20sBeforeSet <= 2.5, `${figures.tenants.growPerSecond20sBeforeSet}/s`);
const followedAfter = figures.tenants.growPerSecondPerSecondAfterSet.findIndex((n) => n >= 0.9 * 8);
figures.tenants.firstSecondAt90PercentOfNewQuota = followedAfter;
check("grow's admitted rate follows within 5 s of `tenants set` (a second with >= 90% of 8 calls starting by then)",
  followedAfter >= 0 && followedAfter <= 5, `from second ${followedAfter}`);
check("grow at >= 90% of its new quota (8/s) from 5 s to 15 s after `tenants set`",
  figures.tenants.growPerSecond5To15sAfterSet >= 0.9 * 8, `${figures.tenants.growPerSecond5To15sAfterSet}/s`);

// 4. /live while Redis was down
const live = jsonl(`${dir}/live.jsonl`);
figures.live = { readings: live.length, statuses: live.reduce((m, r) => ({ ...m, [r.status]: (m[r.status] ?? 0) + 1 }), {}) };
check("/live 200 on both instances throughout the Redis outage",
  live.length >= 90 && live.every((r) => r.status === "200"), JSON.stringify(figures.live.statuses));

// the strict providers were never overrun, but while Redis was away and for 5 s after: then each
// instance paces its share of the rate on its own clock (onRedisDown: local), and the two
// instances' calls are not spaced against each other (docs/guarantees.md)
const outage = [step["redis-down"].t, step["redis-up"].t + 5000];
const providers = [["paced-api", mode.pacedAllows], ["flaky-api", 20], ["quota-api", 50]];
if (longPause) providers.push(["steady-api", 50]);
for (const [name, limit] of providers) {
  const cs = calls(name);
  const refused = cs.filter((c) => c.status === 429);
  const inOutage = refused.filter((c) => c.t >= outage[0] && c.t < outage[1]).length;
  figures[name] = {
    calls: cs.length, status429: refused.length, status429DuringRedisOutage: inOutage,
    mostInAnySecond: mostInWindow(cs.filter((c) => c.status !== 429), 1000),
  };
  check(`0 429s at ${name} (allows ${limit} in any second) outside the Redis outage`,
    refused.length - inOutage === 0, `${refused.length - inOutage} (and ${inOutage} during it)`);
}

// none lost: every event of each stream accepted at its provider (flaky-api's 200: above)
figures.accepted = {};
for (const [stream, count] of Object.entries(produced)) {
  if (stream === "flaky-api") continue;
  const [provider, tenant] = stream.split(":");
  const seen = new Set(ok200(calls(provider)).map((c) => c.id));
  const prefix = tenant ? `${provider}-${tenant}-` : `${provider}-`;
  let missing = 0;
  for (let n = 0; n < count; n++) if (!seen.has(`${prefix}${String(n).padStart(6, "0")}`)) missing++;
  figures.accepted[stream] = { produced: count, missing };
  check(`every event of ${stream} accepted at its provider`, missing === 0, `${count - missing} of ${count}, ${missing} missing`);
}

writeFileSync(`${dir}/figures.json`, JSON.stringify(figures, null, 2));
console.log(JSON.stringify(figures, null, 2));
for (const v of verdicts) console.log(`${v.ok ? "PASS" : "FAIL"}  ${v.name}: ${v.detail}`);
process.exit(verdicts.every((v) => v.ok) ? 0 : 1);
