// The baseline of the PLC benchmark, run as its own process: a bare host that frames
// lines as the appliance does (up to LF) and answers every REQ_ at once with a RES_
// of the same length, made from one pre-encoded telegram: barcode and location copied
// from the REQ_ (the client matches on them), the sequence number + 1, and the other
// of the two benchmark locations as target. No database, no routing, no checks: the
// floor that loopback (or the pty pair) and the client cost on their own.
//
//   node scripts/bench-plc/baseline.ts tcp                    → prints "baseline <port>"
//   node scripts/bench-plc/baseline.ts serial <device> <baud> → prints "baseline serial"
//   both with two more arguments: the two locations as 20-character fields

import net from 'node:net';

const [mode, ...rest] = process.argv.slice(2);
const [first, second] = rest.slice(-2) as [string, string];
const LF = 0x0a;

// A RES_ as the appliance writes it (MFC__ to CNV01, target group absent, error code
// echoed as `********`), filled in per request at the offsets of docs/plc.md.
const template = Buffer.from(
  `###00160MFC__CNV0100000RES_${'0'.repeat(20)}${first}${second}${'*'.repeat(20)}********20261121000000${'*'.repeat(31)}\r\n`,
  'latin1',
);
const firstField = Buffer.from(first, 'latin1');

function answer(line: Buffer, at: number, write: (bytes: Buffer) => void): void {
  if (line.toString('latin1', at + 23, at + 27) !== 'REQ_') return;
  const res = Buffer.from(template);
  line.copy(res, 8, at + 13, at + 18); // our sender = their receiver
  line.copy(res, 13, at + 8, at + 13);
  const seq = (Number(line.toString('latin1', at + 18, at + 23)) + 1) % 100_000;
  res.write(String(seq).padStart(5, '0'), 18, 'latin1');
  line.copy(res, 27, at + 27, at + 67); // barcode + actual location
  const atFirst = line.compare(firstField, 0, 20, at + 47, at + 67) === 0;
  res.write(atFirst ? second : first, 67, 'latin1');
  write(res);
}

/** Splits the stream into lines (LF) and answers each. */
function lines(write: (bytes: Buffer) => void): (chunk: Buffer) => void {
  let buffer: Buffer = Buffer.alloc(0);
  return (chunk) => {
    buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk]);
    let start = 0;
    for (let lf = buffer.indexOf(LF); lf >= 0; lf = buffer.indexOf(LF, start)) {
      const at = buffer.indexOf('###', start);
      if (at >= 0 && at < lf) answer(buffer, at, write);
      start = lf + 1;
    }
    buffer = buffer.subarray(start);
  };
}

if (mode === 'tcp') {
  const server = net.createServer((socket) => {
    socket.setNoDelay(true);
    socket.on(
      'data',
      lines((bytes) => socket.write(bytes)),
    );
    socket.on('error', () => {});
  });
  server.listen(0, '127.0.0.1', () => console.log(`baseline ${(server.address() as net.AddressInfo).port}`));
} else if (mode === 'serial') {
  const [device, baud] = rest as [string, string];
  const { SerialPort } = await import('serialport');
  const port = new SerialPort({ path: device, baudRate: Number(baud) }, (err) => {
    if (err) throw err;
    console.log('baseline serial');
  });
  port.on(
    'data',
    lines((bytes) => port.write(bytes)),
  );
} else {
  console.error('usage: baseline.ts tcp|serial <device> <baud> <location field> <location field>');
  process.exit(2);
}
