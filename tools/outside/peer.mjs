// What every outside peer shares: an HTTP server on a free loopback port (written to
// PORT_FILE once listening), a bounded body reader, one JSON line per call appended to its
// record file, and a clean stop on SIGTERM (the record is flushed and closed).
//
// A peer records what it saw, never a secret: a token is recorded as its kind and verdict
// (a token endpoint also writes the tokens it issued to SECRETS_FILE, outside the run's logs,
// so that the judge can grep every log and topic for them).
import { createServer } from "node:http";
import { createWriteStream, writeFileSync, renameSync } from "node:fs";
import { timingSafeEqual } from "node:crypto";

/** Bodies above this are refused (413) unread: every input from outside is bounded. */
export const MAX_BODY = 1 << 20;

export function env(name) {
  const v = process.env[name];
  if (v === undefined || v === "") {
    console.error(`${process.argv[1]}: the environment variable ${name} is required`);
    process.exit(2);
  }
  return v;
}

/** Milliseconds since the epoch, with sub-millisecond precision, for arrival times. */
export function nowMs() {
  return performance.timeOrigin + performance.now();
}

/** Equality of two strings in time independent of where they differ. */
export function sameSecret(a, b) {
  const x = Buffer.from(String(a));
  const y = Buffer.from(String(b));
  return x.length === y.length && timingSafeEqual(x, y);
}

/** Reads the request body, at most MAX_BODY bytes; resolves null when larger. */
export function readBody(req) {
  return new Promise((resolve, reject) => {
    const parts = [];
    let size = 0;
    req.on("data", (chunk) => {
      size += chunk.length;
      if (size <= MAX_BODY) parts.push(chunk);
    });
    req.on("end", () => resolve(size > MAX_BODY ? null : Buffer.concat(parts)));
    req.on("error", reject);
  });
}

/**
 * Starts `handler(req, body, t) -> {status, headers?, body?, record?}` on a free port, `t` the
 * call's arrival time; each answer's `record` (an object) is appended to RECORD_FILE with `t`. Returns the record
 * writer, so that a peer can add lines of its own (a key switch).
 */
export function serve(name, handler) {
  const record = createWriteStream(env("RECORD_FILE"), { flags: "a" });
  const write = (obj) => record.write(JSON.stringify(obj) + "\n");
  const server = createServer(async (req, res) => {
    const t = nowMs();
    try {
      const body = await readBody(req);
      const answer = body === null
        ? { status: 413, record: { verdict: "too_large" } }
        : await handler(req, body, t);
      write({ t, path: req.url, status: answer.status, ...answer.record });
      res.writeHead(answer.status, { "content-type": "application/json", ...answer.headers });
      res.end(answer.body ?? JSON.stringify({ status: answer.status }));
    } catch (e) {
      write({ t, path: req.url, status: 500, verdict: "peer_error", error: String(e.message) });
      res.writeHead(500);
      res.end();
    }
  });
  server.keepAliveTimeout = 30000;
  server.listen(0, "127.0.0.1", () => {
    const portFile = env("PORT_FILE");
    writeFileSync(portFile + ".tmp", String(server.address().port));
    renameSync(portFile + ".tmp", portFile);
    console.log(`${name} listening on 127.0.0.1:${server.address().port}`);
  });
  process.on("SIGTERM", () => {
    server.close();
    server.closeAllConnections();
    record.end(() => process.exit(0));
  });
  return write;
}

/**
 * At most `limit` calls accepted in any sliding window of `windowMs`, judged on arrival: a
 * provider that allows no burst beyond its published rate.
 */
export class SlidingWindow {
  constructor(limit, windowMs) {
    this.limit = limit;
    this.windowMs = windowMs;
    this.accepted = [];
  }

  tryAccept(t) {
    while (this.accepted.length > 0 && this.accepted[0] <= t - this.windowMs) this.accepted.shift();
    if (this.accepted.length >= this.limit) return false;
    this.accepted.push(t);
    return true;
  }
}
