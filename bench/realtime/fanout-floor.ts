/**
 * The floor under the gateway: what fanning one event out to N WebSocket
 * clients costs a Node process with the `ws` library, with no database, HTTP
 * or Engram code in the way, and what the candidate fixes buy.
 *
 * A bare `ws` server in a child process "publishes" events shaped like the
 * gateway's (same size) at FLOOR_RATE per second for FLOOR_SECONDS, to
 * FLOOR_CLIENTS clients here, in each of FLOOR_MODES:
 *
 *   per-event  ws.send(text) per client per event (what the gateway does now)
 *   buffer     the same, with the text encoded to a Buffer once per event
 *   cork:<ms>  events held <ms> (0 = until the event loop turns, setImmediate),
 *              then per client: cork the socket, ws.send each held event,
 *              uncork: the same frames, one write(v) per client per flush
 *   batch:<ms> events held <ms>, then one frame per client carrying a JSON
 *              array of them (a protocol change: a batch message)
 *
 * and reports the server's CPU per event and the send → receipt latency.
 *
 *   npx tsx bench/realtime/fanout-floor.ts
 *   FLOOR_CLIENTS=1000 FLOOR_RATE=200 FLOOR_MODES=per-event,cork:0,cork:5 npx tsx bench/realtime/fanout-floor.ts
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import WebSocket, { WebSocketServer } from 'ws';
import { clock } from './clock.js';

const env = (name: string, fallback: number) => Number(process.env[name] ?? fallback);
const CLIENTS = env('FLOOR_CLIENTS', 1000);
const RATE = env('FLOOR_RATE', 200);
const SECONDS = env('FLOOR_SECONDS', 10);
const MODES = (process.env.FLOOR_MODES ?? 'per-event,buffer,cork:0,cork:5,batch:5')
  .split(',')
  .map((mode) => mode.trim())
  .filter(Boolean);

interface Start {
  kind: 'start';
  mode: string;
  rate: number;
  seconds: number;
}
interface Done {
  kind: 'done';
  events: number;
  cpuMs: number;
  wallMs: number;
  /** Event-loop utilisation of the server process over the run. */
  elu: number;
  /** Writes per client: one per event, or one per flush when held. */
  flushes: number;
}

// ── the server (child process) ──────────────────────────────────────────────

/** An event message the size of the gateway's entity_created (≈ 330 bytes). */
function eventText(seq: number, sentAt: number): string {
  const id = '0e4c2f9a-5b1d-4c1e-9f7a-3d2b1c0a9e8f';
  return JSON.stringify({
    id: `event-${seq}`,
    type: 'entity_created',
    payload: { entityId: id, id, name: `rt1-${seq}`, type: 'bench', seq, sentAt },
    timestamp: new Date(sentAt).toISOString(),
    seq,
  });
}

function serve(): void {
  const wss = new WebSocketServer({ port: 0, host: '127.0.0.1', perMessageDeflate: false });
  wss.on('listening', () => {
    const { port } = wss.address() as { port: number };
    process.send!({ kind: 'listening', port });
  });
  let seq = 0;

  process.on('message', (message: Start | { kind: 'exit' }) => {
    if (message.kind === 'exit') {
      wss.close();
      process.exit(0);
    }
    if (message.kind !== 'start') return;
    const { mode, rate, seconds } = message;
    const [name, holdRaw] = mode.split(':');
    const hold = Number(holdRaw ?? 0);
    const clients = [...wss.clients];
    const total = Math.round(rate * seconds);
    let pending: { seq: number; at: number }[] = [];
    let flushScheduled = false;
    let flushes = 0;

    const flush = () => {
      flushScheduled = false;
      const held = pending;
      pending = [];
      if (held.length === 0) return;
      flushes += 1;
      if (name === 'batch') {
        const text = `[${held.map((event) => eventText(event.seq, event.at)).join(',')}]`;
        for (const client of clients) client.send(text);
        return;
      }
      const texts = held.map((event) => eventText(event.seq, event.at));
      for (const client of clients) {
        const socket = (client as unknown as { _socket: import('node:net').Socket })._socket;
        socket.cork();
        for (const text of texts) client.send(text);
        socket.uncork();
      }
    };

    const publish = (at: number) => {
      seq += 1;
      if (name === 'per-event' || name === 'buffer') flushes += 1;
      if (name === 'per-event') {
        const text = eventText(seq, at);
        for (const client of clients) client.send(text);
      } else if (name === 'buffer') {
        const data = Buffer.from(eventText(seq, at));
        for (const client of clients) client.send(data, { binary: false });
      } else {
        pending.push({ seq, at });
        if (!flushScheduled) {
          flushScheduled = true;
          if (hold > 0) setTimeout(flush, hold);
          else setImmediate(flush);
        }
      }
    };

    const cpu0 = process.cpuUsage();
    const elu0 = performance.eventLoopUtilization();
    const start = clock() + 5;
    let next = 0;
    const tick = () => {
      const now = clock();
      while (next < total && start + (next * 1000) / rate <= now) {
        publish(clock());
        next += 1;
      }
      if (next < total) setTimeout(tick, Math.max(0, start + (next * 1000) / rate - clock()));
      else
        setTimeout(() => {
          const cpu = process.cpuUsage(cpu0);
          const done: Done = {
            kind: 'done',
            events: total,
            cpuMs: (cpu.user + cpu.system) / 1000,
            wallMs: clock() - start,
            elu: performance.eventLoopUtilization(elu0).utilization,
            flushes,
          };
          process.send!(done);
        }, hold + 20);
    };
    setTimeout(tick, 5);
  });
}

// ── the clients (this process) ──────────────────────────────────────────────

function pct(values: Float64Array, p: number): number {
  return values[
    Math.min(values.length - 1, Math.max(0, Math.ceil((p / 100) * values.length) - 1))
  ]!;
}

async function main(): Promise<void> {
  const child = fork(fileURLToPath(import.meta.url), ['serve'], {
    execArgv: ['--import', import.meta.resolve('tsx')],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  const nextMessage = <T>(kind: string) =>
    new Promise<T>((resolve) => {
      const listener = (message: { kind: string }) => {
        if (message.kind !== kind) return;
        child.off('message', listener);
        resolve(message as T);
      };
      child.on('message', listener);
    });
  const { port } = await nextMessage<{ port: number }>('listening');

  let latencies = new Float64Array(0);
  let received = 0;
  const sockets: WebSocket[] = [];
  const onData = (data: WebSocket.RawData) => {
    const now = clock();
    const text = data.toString();
    // One event, or an array of them; each carries "sentAt":<ms>.
    let at = text.indexOf('"sentAt":');
    while (at >= 0) {
      const sentAt = parseFloat(text.slice(at + 9, at + 40));
      if (received < latencies.length) latencies[received] = now - sentAt;
      received += 1;
      at = text.indexOf('"sentAt":', at + 9);
    }
  };
  for (let i = 0; i < CLIENTS; i += 50) {
    await Promise.all(
      Array.from({ length: Math.min(50, CLIENTS - i) }, async () => {
        const socket = new WebSocket(`ws://127.0.0.1:${port}`, {
          perMessageDeflate: false,
          skipUTF8Validation: true,
        });
        socket.on('message', onData);
        sockets.push(socket);
        await new Promise((resolve) => socket.once('open', resolve));
      }),
    );
  }

  console.log(
    `fan-out floor: bare ws server (child process) → ${CLIENTS} clients, ${RATE} events/s for ${SECONDS} s; event ≈ ${eventText(1, Date.now()).length} bytes`,
  );
  console.log(
    '  mode          events/s  events/write  server cores  server loop  µs CPU/event  µs CPU/delivery   p50 ms   p99 ms   max ms  received',
  );
  for (const mode of MODES) {
    const total = Math.round(RATE * SECONDS);
    latencies = new Float64Array(total * CLIENTS);
    received = 0;
    const cpu0 = process.cpuUsage();
    child.send({ kind: 'start', mode, rate: RATE, seconds: SECONDS } satisfies Start);
    const done = await nextMessage<Done>('done');
    const deadline = clock() + 10_000;
    while (received < total * CLIENTS && clock() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const clientCpu = process.cpuUsage(cpu0);
    const got = latencies.subarray(0, Math.min(received, latencies.length)).sort();
    const cores = done.cpuMs / done.wallMs;
    console.log(
      `  ${mode.padEnd(12)}  ${((done.events * 1000) / done.wallMs).toFixed(0).padStart(8)}  ${(done.events / done.flushes).toFixed(1).padStart(12)}  ${cores.toFixed(2).padStart(12)}  ${(done.elu * 100).toFixed(0).padStart(10)}%  ${((done.cpuMs * 1000) / done.events).toFixed(0).padStart(12)}  ${((done.cpuMs * 1000) / done.events / CLIENTS).toFixed(2).padStart(15)}  ${pct(got, 50).toFixed(1).padStart(7)}  ${pct(got, 99).toFixed(1).padStart(7)}  ${got[got.length - 1]!.toFixed(1).padStart(7)}  ${received}/${total * CLIENTS} (clients used ${((clientCpu.user + clientCpu.system) / 1000 / done.wallMs).toFixed(2)} cores)`,
    );
    await new Promise((resolve) => setTimeout(resolve, 1_000));
  }
  for (const socket of sockets) socket.terminate();
  child.send({ kind: 'exit' });
}

if (process.argv[2] === 'serve') serve();
else
  main().then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error);
      process.exit(1);
    },
  );
