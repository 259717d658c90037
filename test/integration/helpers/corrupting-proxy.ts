// A loopback TCP proxy in front of etcd that flips one byte inside the Nth large gRPC message the server
// sends (the middle of a snapshot blob), leaving HTTP/2 and protobuf framing intact: a real etcd snapshot,
// corrupted on the wire, for the "checksum does not match" fault.
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { freePort } from '../../env/ports.js';

export interface CorruptingProxy {
  /** `http://127.0.0.1:<port>`, to use instead of the etcd client URL. */
  readonly url: string;
  /** Whether a byte was flipped. */
  corrupted(): boolean;
  close(): Promise<void>;
}

interface MessageState {
  header: number[];
  remaining: number;
  length: number;
}

/** Flips one byte in the middle of the `nth` gRPC message larger than 16 KiB, on any stream. */
export async function startCorruptingProxy(target: URL, nth = 20): Promise<CorruptingProxy> {
  const port = await freePort();
  let flipped = false;
  let largeMessages = 0;
  const sockets = new Set<Socket>();

  function corrupter() {
    let pending = Buffer.alloc(0);
    const streams = new Map<number, MessageState>();
    const onData = (payload: Buffer, start: number, end: number, streamId: number) => {
      let state = streams.get(streamId) ?? { header: [], remaining: 0, length: 0 };
      for (let i = start; i < end; ) {
        if (state.remaining === 0 && state.header.length < 5) {
          state.header.push(payload[i++]!);
          if (state.header.length === 5) {
            state.length = Buffer.from(state.header).readUInt32BE(1);
            state.remaining = state.length;
            if (state.length === 0) state = { header: [], remaining: 0, length: 0 };
            else if (state.length > 16 * 1024) largeMessages += 1;
          }
          continue;
        }
        const take = Math.min(state.remaining, end - i);
        const offset = state.length - state.remaining; // offset inside the message of payload[i]
        const middle = Math.floor(state.length / 2);
        if (
          !flipped &&
          largeMessages === nth &&
          state.length > 16 * 1024 &&
          middle >= offset &&
          middle < offset + take
        ) {
          payload[i + (middle - offset)]! ^= 0xff;
          flipped = true;
        }
        i += take;
        state.remaining -= take;
        if (state.remaining === 0) state = { header: [], remaining: 0, length: 0 };
      }
      streams.set(streamId, state);
    };
    return (chunk: Buffer): Buffer => {
      pending = Buffer.concat([pending, chunk]);
      let offset = 0;
      while (pending.length - offset >= 9) {
        const length = pending.readUIntBE(offset, 3);
        if (pending.length - offset < 9 + length) break;
        const type = pending[offset + 3];
        const flags = pending[offset + 4]!;
        const streamId = pending.readUInt32BE(offset + 5) & 0x7fffffff;
        if (type === 0) {
          const padded = (flags & 0x8) !== 0;
          const padLength = padded ? pending[offset + 9]! : 0;
          const start = offset + 9 + (padded ? 1 : 0);
          onData(pending, start, offset + 9 + length - padLength, streamId);
        }
        offset += 9 + length;
      }
      const complete = pending.subarray(0, offset);
      pending = Buffer.from(pending.subarray(offset));
      return Buffer.from(complete);
    };
  }

  const server: Server = createServer((client) => {
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    sockets.add(client);
    sockets.add(upstream);
    const corrupt = corrupter();
    client.pipe(upstream);
    upstream.on('data', (chunk: Buffer) => {
      const out = corrupt(chunk);
      if (out.length > 0 && !client.write(out)) {
        upstream.pause();
        client.once('drain', () => upstream.resume());
      }
    });
    const close = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    for (const socket of [client, upstream]) {
      socket.on('error', close);
      socket.on('close', close);
    }
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${port}`,
    corrupted: () => flipped,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
