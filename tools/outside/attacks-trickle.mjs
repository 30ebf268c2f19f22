// A tenant's endpoint that answers its headers at once and then trickles its body, a byte every
// second (issue 33: before WholeDeadline such a call held its lane for as long as the body
// lasted). Raw TCP, so nothing buffers the trickle: it reads the request (head and
// Content-Length body), sends "200" with Content-Length: BODY_BYTES, then one byte per second.
//
//   RECORD_FILE, PORT_FILE, BODY_BYTES (120)
//
// One record line per call: {t (request read), headersAt, closedAt, bytesTrickled, closedBy}:
// closedBy "client" when Sluice closed the connection before the body was complete.
import { createServer } from "node:net";
import { createWriteStream, writeFileSync, renameSync } from "node:fs";
import { env, nowMs } from "./peer.mjs";

const record = createWriteStream(env("RECORD_FILE"), { flags: "a" });
const bodyBytes = Number(process.env.BODY_BYTES ?? 120);

const server = createServer((socket) => {
  let seen = Buffer.alloc(0);
  let call = null;
  let timer = null;
  const finish = (closedBy) => {
    if (!call || call.closedAt) return;
    clearInterval(timer);
    call.closedAt = nowMs();
    call.closedBy = closedBy;
    record.write(JSON.stringify(call) + "\n");
  };
  socket.on("data", (chunk) => {
    if (call) return;
    seen = Buffer.concat([seen, chunk]);
    const end = seen.indexOf("\r\n\r\n");
    if (end < 0) return;
    const head = seen.subarray(0, end).toString("latin1");
    const length = Number((/\r\ncontent-length:\s*(\d+)/i.exec(head) ?? [0, 0])[1]);
    if (seen.length < end + 4 + length) return;
    call = { t: nowMs(), requestLine: head.split("\r\n")[0], bytesTrickled: 0 };
    socket.write(`HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: ${bodyBytes}\r\n\r\n`);
    call.headersAt = nowMs();
    timer = setInterval(() => {
      socket.write(" ");
      call.bytesTrickled += 1;
      if (call.bytesTrickled >= bodyBytes) {
        socket.end();
        finish("server");
      }
    }, 1000);
  });
  socket.on("close", () => finish("client"));
  socket.on("error", () => {});
});
server.listen(0, "127.0.0.1", () => {
  const portFile = env("PORT_FILE");
  writeFileSync(portFile + ".tmp", String(server.address().port));
  renameSync(portFile + ".tmp", portFile);
  console.log(`trickling endpoint listening on 127.0.0.1:${server.address().port}`);
});
process.on("SIGTERM", () => {
  server.close();
  record.end(() => process.exit(0));
});
