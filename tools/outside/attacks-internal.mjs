// The "internal service" a rebinding tenant wants reached: raw TCP listeners on loopback that
// record every connection made to them (its bytes' first line) and answer like an internal API
// would (200 and a body the attacker would love to capture). Two ports: one named in the tenant's
// endpoint given to Sluice (jar), one for the naive check-then-connect control (control).
//
//   RECORD_FILE, PORT_FILE (JSON {jar, control})
//
// One record line per connection: {t, listener, firstLine}.
import { createServer } from "node:net";
import { createWriteStream, writeFileSync, renameSync } from "node:fs";
import { env, nowMs } from "./peer.mjs";

const record = createWriteStream(env("RECORD_FILE"), { flags: "a" });
const ports = {};

function listener(name) {
  return new Promise((resolve) => {
    const server = createServer((socket) => {
      const t = nowMs();
      let seen = "";
      let written = false;
      const answer = () => {
        if (written) return;
        written = true;
        record.write(JSON.stringify({ t, listener: name, firstLine: seen.split("\r\n")[0].slice(0, 200) }) + "\n");
        const body = '{"internal":"instance credentials the tenant must never see"}';
        socket.end(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
      };
      socket.on("data", (chunk) => {
        seen += chunk.toString("latin1").slice(0, 4096);
        if (seen.includes("\r\n\r\n")) answer();
      });
      socket.setTimeout(2000, answer); // a connection that sends nothing is recorded too
      socket.on("error", () => {});
    });
    server.listen(0, "127.0.0.1", () => {
      ports[name] = server.address().port;
      resolve(server);
    });
  });
}

const servers = [await listener("jar"), await listener("control")];
const portFile = env("PORT_FILE");
writeFileSync(portFile + ".tmp", JSON.stringify(ports));
renameSync(portFile + ".tmp", portFile);
console.log(`internal service listening on 127.0.0.1:${ports.jar} (jar) and :${ports.control} (control)`);
process.on("SIGTERM", () => {
  servers.forEach((s) => s.close());
  record.end(() => process.exit(0));
});
